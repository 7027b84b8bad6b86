import { isDomainError } from '@app/platform';
import type { PaymentsKeyPrincipal, Permissions } from './payments-key.principal';
import { authorizeKey, KeyResource } from './permissions';

const NONE: Permissions = { customers: 'none', payments: 'none', refunds: 'none', webhooks: 'none', events: 'none' };
const key = (keyKind: 'secret' | 'restricted', permissions: Partial<Permissions> = {}): PaymentsKeyPrincipal => ({
  kind: 'payments_key',
  accountId: 'acct_1',
  mode: 'test',
  keyId: 'key_1',
  via: 'key',
  keyKind,
  permissions: keyKind === 'restricted' ? { ...NONE, ...permissions } : null,
  expiresAt: null,
  last4: 'Ab12',
});

@KeyResource('refunds')
class Refunds {}
@KeyResource('api_keys')
class Keys {}
class Undeclared {}

const handler = (): void => undefined;

/** The refusal's code and message, or 'allowed'. */
function decide(principal: PaymentsKeyPrincipal, controller: new () => object, method: string): string {
  try {
    authorizeKey(principal, { method, handler, controller });
    return 'allowed';
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return `${err.code}: ${err.message}`;
  }
}

describe('authorizeKey (restricted keys, decided per controller)', () => {
  it('lets a secret key through everywhere, declared or not', () => {
    for (const controller of [Refunds, Keys, Undeclared])
      for (const method of ['GET', 'POST', 'DELETE']) expect(decide(key('secret'), controller, method)).toBe('allowed');
  });

  it('GET needs "read", every other method "write"; "write" implies "read"', () => {
    expect(decide(key('restricted', { refunds: 'read' }), Refunds, 'GET')).toBe('allowed');
    expect(decide(key('restricted', { refunds: 'write' }), Refunds, 'GET')).toBe('allowed');
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      expect(decide(key('restricted', { refunds: 'write' }), Refunds, method)).toBe('allowed');
      expect(decide(key('restricted', { refunds: 'read' }), Refunds, method)).toBe(
        'permission_denied: The restricted key rk_test_…Ab12 does not have the permission this request needs: refunds "write" (it has refunds "read"). Use a key with refunds: "write" or more.',
      );
    }
    expect(decide(key('restricted', { payments: 'write' }), Refunds, 'GET')).toMatch(/^permission_denied: .*refunds "read"/);
  });

  it('fails closed: a controller without a declared resource, and key management, refuse restricted keys', () => {
    const all = key('restricted', {
      customers: 'write',
      payments: 'write',
      refunds: 'write',
      webhooks: 'write',
      events: 'write',
    });
    expect(decide(all, Undeclared, 'GET')).toMatch(/^permission_denied: .*cannot call this route/);
    expect(decide(all, Keys, 'GET')).toMatch(/^permission_denied: .*cannot manage API keys/);
  });
});
