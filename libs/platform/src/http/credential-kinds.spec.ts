import { DomainError } from '../errors/domain-error';
import { CredentialKinds, hasPrefix, looksLikeJwt } from './credential-kinds';

const jwt = (header: object): string =>
  `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`;

describe('credential shapes', () => {
  it('looksLikeJwt: three base64url segments whose header names its alg', () => {
    expect(looksLikeJwt(jwt({ alg: 'HS256', typ: 'at+jwt' }))).toBe(true);
    expect(looksLikeJwt(jwt({ typ: 'JWT' }))).toBe(false);
    expect(looksLikeJwt('not.a.jwt')).toBe(false);
    expect(looksLikeJwt('sk_test_abc')).toBe(false);
    expect(looksLikeJwt(`${'A'.repeat(12)}.e30.x`)).toBe(false);
  });

  it('hasPrefix matches the start only, with its characters taken literally', () => {
    const matches = hasPrefix('sk_test_', 'a.b');
    expect(matches('sk_test_123')).toBe(true);
    expect(matches('a.b')).toBe(true);
    expect(matches('axb')).toBe(false);
    expect(matches('x_sk_test_')).toBe(false);
  });
});

describe('CredentialKinds.explainRefusal', () => {
  const kinds = new CredentialKinds([
    { name: 'a key of ours', authenticator: 'ours', matches: hasPrefix('k_') },
    { name: 'a token of the neighbour', matches: hasPrefix('n_') },
  ]);
  const route = { wants: 'a key of ours (k_…)', kind: 'ours' };
  const refusal = new DomainError('invalid_api_key', 'Invalid API key provided.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="x", error="invalid_token"' },
  });

  it('says what the route takes, and where the admin key works, keeping code and challenge; the same words for the admin key and any other guess', () => {
    const error = kinds.explainRefusal(refusal, 'the-admin-key', route);
    expect(error.message).toBe(
      'Invalid API key provided. This route takes a key of ours (k_…) (the admin key works only on /admin/v1 routes).',
    );
    expect(error.code).toBe('invalid_api_key');
    expect(error.headers).toEqual(refusal.headers);
    expect(kinds.explainRefusal(refusal, 'the-admin-kez', route).message).toBe(error.message);
  });

  it('names another declared kind', () => {
    expect(kinds.explainRefusal(refusal, 'n_secret', route).message).toBe(
      'This route takes a key of ours (k_…); this looks like a token of the neighbour.',
    );
  });

  it("keeps the authenticator's refusal for its own kind, and adds what the route takes for an unknown shape", () => {
    expect(kinds.explainRefusal(refusal, 'k_revoked', route)).toBe(refusal);
    expect(kinds.explainRefusal(refusal, 'whatever', route).message).toBe(
      'Invalid API key provided. This route takes a key of ours (k_…) (the admin key works only on /admin/v1 routes).',
    );
  });

  it('never repeats the credential', () => {
    for (const credential of ['the-admin-key', 'n_secret123', 'k_secret123', 'other-secret-123']) {
      expect(kinds.explainRefusal(refusal, credential, route).message).not.toContain(credential);
    }
    expect(kinds.wrongAdminKey('n_secret123')).toBe(
      'This route takes the admin key (ADMIN_API_KEY); this looks like a token of the neighbour.',
    );
    expect(kinds.wrongAdminKey('other-secret-123')).toBeUndefined();
  });
});
