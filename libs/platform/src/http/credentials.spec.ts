import { bearerToken, constantTimeEqual, sha256Hex } from './credentials';
import { newRequestId } from './request-context';

describe('credentials helpers', () => {
  it('extracts RFC 6750 bearer tokens', () => {
    expect(bearerToken('Bearer abc.DEF-123_~+/==')).toBe('abc.DEF-123_~+/==');
    expect(bearerToken('bearer xyz')).toBe('xyz');
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });

  it('compares secrets of any length in constant time', () => {
    expect(constantTimeEqual('same-secret', 'same-secret')).toBe(true);
    expect(constantTimeEqual('same-secret', 'same-secreT')).toBe(false);
    expect(constantTimeEqual('short', 'a-much-longer-value')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('hashes with sha256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes request ids of the documented shape', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newRequestId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
  });
});
