import { newRequestId } from './http/request-context';
import { newId, randomBase62, randomPoolBytes } from './ids';

describe('ids from the pooled CSPRNG', () => {
  it('hands every pooled byte out once, across refills of the pool', () => {
    const seen = new Set<string>();
    // 3,000 × 16 bytes crosses the 4 KiB pool about a dozen times.
    for (let i = 0; i < 3_000; i++) seen.add(randomPoolBytes(16).toString('hex'));
    expect(seen.size).toBe(3_000);
  });

  it('returns fresh bytes for requests larger than the pool', () => {
    const a = randomPoolBytes(10_000);
    const b = randomPoolBytes(10_000);
    expect(a).toHaveLength(10_000);
    expect(Buffer.compare(a, b)).not.toBe(0);
  });

  it('keeps the id shapes: <prefix>_ + 24 base62, req_ + 24 hex, all distinct', () => {
    const ids = Array.from({ length: 2_000 }, () => newId('pay'));
    for (const id of ids) expect(id).toMatch(/^pay_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const requests = Array.from({ length: 2_000 }, () => newRequestId());
    for (const id of requests) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(requests).size).toBe(requests.length);
    expect(randomBase62(43)).toMatch(/^[0-9A-Za-z]{43}$/);
  });

  it('draws base62 characters without bias (each of the 62 within 20 % of the mean)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 2_000 }, () => randomBase62(31)).join('');
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const mean = text.length / 62;
    for (const n of counts.values()) expect(Math.abs(n - mean) / mean).toBeLessThan(0.2);
  });
});
