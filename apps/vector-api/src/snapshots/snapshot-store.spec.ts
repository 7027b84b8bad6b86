import { compareSnapshots, rechunk, type SnapshotInfo } from './snapshot-store';

// eslint-disable-next-line @typescript-eslint/require-await -- a payload is an AsyncIterable; this one has nothing to wait for
async function* from(sizes: number[]): AsyncGenerator<Uint8Array> {
  let next = 0;
  for (const size of sizes) yield Uint8Array.from({ length: size }, () => next++ % 251);
}

async function chunksOf(source: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of source) out.push(chunk);
  return out;
}

describe('rechunk', () => {
  it('regroups pieces of any size into chunks of exactly the chunk size, the last shorter', async () => {
    const chunks = await chunksOf(rechunk(from([1, 9, 0, 25, 3, 10]), 10));
    expect(chunks.map((c) => c.length)).toEqual([10, 10, 10, 10, 8]);
    const all = Buffer.concat(chunks);
    expect([...all]).toEqual(Array.from({ length: 48 }, (_, i) => i % 251));
  });

  it('yields no chunk for an empty payload and no empty chunk after an exact multiple', async () => {
    expect(await chunksOf(rechunk(from([]), 10))).toEqual([]);
    expect((await chunksOf(rechunk(from([20]), 10))).map((c) => c.length)).toEqual([10, 10]);
  });

  it('gives each chunk a buffer of its own', async () => {
    const chunks = await chunksOf(rechunk(from([30]), 10));
    expect(chunks[0]?.[0]).toBe(0);
    expect(chunks[1]?.[0]).toBe(10);
  });
});

describe('compareSnapshots', () => {
  const s = (id: string, seq: bigint, at: number): SnapshotInfo => ({
    id,
    tableId: 't',
    seq,
    formatVersion: 1,
    fingerprint: '',
    bytes: 0,
    sha256: '',
    chunks: 0,
    createdAt: new Date(at),
  });

  it('orders by highest seq, then newest, then id', () => {
    const list = [s('a', 1n, 5), s('b', 2n ** 62n, 1), s('c', 7n, 1), s('d', 7n, 3), s('e', 7n, 3)];
    expect(list.sort(compareSnapshots).map((x) => x.id)).toEqual(['b', 'e', 'd', 'c', 'a']);
  });
});
