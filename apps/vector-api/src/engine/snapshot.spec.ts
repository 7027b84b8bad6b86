import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusteredVectors } from '../../../../test/support/random';
import { parseFilter } from './filter';
import { readSnapshot, SnapshotFormatError, SnapshotMismatchError, type SnapshotShape, writeSnapshot } from './snapshot';
import type { IndexKind, Metric } from './types';
import { type CollectionRow, VectorCollection } from './vector-collection';

const DIM = 24;
const COUNT = 3000;
const { vectors } = clusteredVectors(41, COUNT + 600, DIM, 30);
const rows: CollectionRow[] = vectors.slice(0, COUNT + 500).map((embedding, i) => ({
  id: `v${i}`,
  label: i,
  embedding,
  metadata: { parity: i % 2 === 0 ? 'even' : 'odd', n: i },
}));
const queries = vectors.slice(COUNT + 500);

const open: VectorCollection[] = [];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'snapshot-spec-'));
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collection(kind: IndexKind, deferIndex = false, metric?: Metric): VectorCollection {
  const c = new VectorCollection(DIM, kind, {
    ...(metric ? { metric } : {}),
    ivf: { minRows: 1000 },
    deferIndex,
    onError: (err) => {
      throw err;
    },
  });
  open.push(c);
  return c;
}

const shape = (kind: IndexKind): SnapshotShape => ({ dimension: DIM, indexKind: kind, fingerprint: `${kind}-test` });

async function bytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of source) out.push(chunk.slice());
  return out;
}

async function* replay(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield await Promise.resolve(c);
}

async function answers(c: VectorCollection, kind?: IndexKind): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of queries) out.push((await c.query(q, 10, parseFilter({ parity: 'even' }), kind)).hits.map((h) => h.id));
  return out;
}

describe.each(['hnsw', 'ivf'] as const)('%s snapshot', (kind) => {
  it('round trip: the loaded table answers like the original, its index from the stored structure (no rebuild)', async () => {
    const original = collection(kind);
    original.insert(rows.slice(0, COUNT), 1);
    original.deleteLabels([5, 6, 7], 2);
    await original.idle();
    const chunks = await bytes(writeSnapshot(original, shape(kind), 2, dir));
    const loaded = await readSnapshot(replay(chunks), shape(kind), () => collection(kind, true), dir);
    expect(loaded.seq).toBe(2);
    const c = loaded.collection;
    expect(c.size).toBe(COUNT - 3);
    expect(c.has('v5')).toBe(false);
    // A stale insert of a deleted label (seq 1 < its delete's 2) stays refused after the load.
    expect(c.insert([rows[5]], 1)).toBe(0);
    const status = c.status();
    if (kind === 'hnsw') expect(status.details).toMatchObject({ from_snapshot: 1 });
    else expect(status.details.trained_rows).toBe(original.status().details.trained_rows);
    await c.idle();
    expect(c.status()).toMatchObject({ state: 'ready', details: { pending: 0 } });
    expect(await answers(c)).toEqual(await answers(original));
    expect(await answers(c, 'flat')).toEqual(await answers(original, 'flat'));
  });

  it('changes made while the snapshot is taken, and after it, are right once the log after its seq is replayed', async () => {
    const original = collection(kind);
    original.insert(rows.slice(0, COUNT), 1);
    await original.idle();
    const stream = writeSnapshot(original, shape(kind), 1, dir);
    const chunks: Uint8Array[] = [];
    let first = true;
    for await (const chunk of stream) {
      chunks.push(chunk.slice());
      if (first) {
        // seq 2: rows inserted and deleted while the rows are being read; label 9 reused
        original.insert(rows.slice(COUNT, COUNT + 200), 2);
        original.deleteLabels([9, 10], 2);
        original.insert([{ ...rows[COUNT + 300], label: 9 }], 3);
        first = false;
      }
    }
    const loaded = await readSnapshot(replay(chunks), shape(kind), () => collection(kind, true), dir);
    const c = loaded.collection;
    // The log after the snapshot's seq, replayed (some of it is already in the rows).
    c.insert(rows.slice(COUNT, COUNT + 200), 2);
    c.deleteLabels([9, 10], 2);
    c.insert([{ ...rows[COUNT + 300], label: 9 }], 3);
    await c.idle();
    await original.idle();
    expect(c.size).toBe(original.size);
    expect(c.labelOf(`v${COUNT + 300}`)).toBe(9);
    expect(c.has('v9')).toBe(false);
    const q = vectors[COUNT + 300];
    expect((await c.query(q, 1)).hits[0]?.id).toBe(`v${COUNT + 300}`);
    expect(await answers(c, 'flat')).toEqual(await answers(original, 'flat'));
  });

  it('a truncated or altered stream, or another shape, is refused (and the half-built table closed)', async () => {
    const original = collection(kind);
    original.insert(rows.slice(0, COUNT), 1);
    await original.idle();
    const chunks = await bytes(writeSnapshot(original, shape(kind), 1, dir));
    const whole = Buffer.concat(chunks);
    await expect(
      readSnapshot(replay([whole.subarray(0, whole.length - 9)]), shape(kind), () => collection(kind, true), dir),
    ).rejects.toBeInstanceOf(SnapshotFormatError);
    await expect(
      readSnapshot(replay([whole.subarray(0, Math.floor(whole.length / 2))]), shape(kind), () => collection(kind, true), dir),
    ).rejects.toBeInstanceOf(SnapshotFormatError);
    await expect(
      readSnapshot(replay(chunks), { ...shape(kind), fingerprint: 'other' }, () => collection(kind, true), dir),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    await expect(
      readSnapshot(replay(chunks), { ...shape(kind), dimension: DIM + 1 }, () => collection(kind, true), dir),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield* replay(chunks);
      throw new Error('checksum differs');
    }
    await expect(readSnapshot(failing(), shape(kind), () => collection(kind, true), dir)).rejects.toThrow('checksum differs');
  });
});

describe.each([
  ['hnsw', 'dot'],
  ['hnsw', 'euclidean'],
  ['ivf', 'dot'],
  ['ivf', 'euclidean'],
] as const)('%s snapshot of a %s table', (kind, metric) => {
  // Norms varied (×1 … ×5), so dot and euclidean rank differently from cosine.
  const scaled = rows.slice(0, COUNT).map((r, i) => ({ ...r, embedding: Array.from(r.embedding, (x) => x * (1 + (i % 5))) }));
  const metricShape = (m?: Metric): SnapshotShape => ({ ...shape(kind), ...(m ? { metric: m } : {}) });

  async function scored(c: VectorCollection, k?: IndexKind): Promise<Array<Array<[string, number]>>> {
    const out: Array<Array<[string, number]>> = [];
    for (const q of queries) {
      const { hits } = await c.query(q, 10, parseFilter({ parity: 'even' }), k);
      out.push(hits.map((h) => [h.id, h.score]));
    }
    return out;
  }

  it('round trip: the loaded table has the metric and answers equal to the original (ids and scores)', async () => {
    const original = collection(kind, false, metric);
    original.insert(scaled, 1);
    original.deleteLabels([5, 6, 7], 2);
    await original.idle();
    const chunks = await bytes(writeSnapshot(original, metricShape(metric), 2, dir));
    const loaded = await readSnapshot(replay(chunks), metricShape(metric), () => collection(kind, true, metric), dir);
    const c = loaded.collection;
    expect(c.metric).toBe(metric);
    expect(c.size).toBe(COUNT - 3);
    const status = c.status();
    if (kind === 'hnsw') expect(status.details).toMatchObject({ from_snapshot: 1 });
    else expect(status.details.trained_rows).toBe(original.status().details.trained_rows);
    await c.idle();
    expect(c.status()).toMatchObject({ state: 'ready', details: { pending: 0 } });
    const got = await scored(c);
    expect(got).toEqual(await scored(original));
    expect(got.every((hits) => hits.length === 10)).toBe(true);
    expect(await scored(c, 'flat')).toEqual(await scored(original, 'flat'));
    // A shape that does not name the metric still loads it into a collection of that metric.
    const again = await readSnapshot(replay(chunks), metricShape(), () => collection(kind, true, metric), dir);
    await again.collection.idle();
    expect(await scored(again.collection)).toEqual(got);
  });

  it('a snapshot of another metric is refused (and the half-built table closed)', async () => {
    const original = collection(kind, false, metric);
    original.insert(scaled, 1);
    await original.idle();
    const chunks = await bytes(writeSnapshot(original, metricShape(metric), 1, dir));
    const other: Metric = metric === 'dot' ? 'euclidean' : 'dot';
    // named in the shape: refused before anything is built
    let built = 0;
    await expect(
      readSnapshot(
        replay(chunks),
        metricShape(other),
        () => {
          built++;
          return collection(kind, true, other);
        },
        dir,
      ),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    expect(built).toBe(0);
    // not named: the created collection's metric decides
    const made: VectorCollection[] = [];
    for (const m of [other, 'cosine'] as const) {
      await expect(
        readSnapshot(
          replay(chunks),
          metricShape(),
          () => {
            const c = collection(kind, true, m);
            made.push(c);
            return c;
          },
          dir,
        ),
      ).rejects.toBeInstanceOf(SnapshotMismatchError);
    }
    expect(made).toHaveLength(2);
    // and a cosine table's snapshot is refused by a table of this metric
    const cosine = collection(kind);
    cosine.insert(rows.slice(0, COUNT), 1);
    await cosine.idle();
    const cosineChunks = await bytes(writeSnapshot(cosine, shape(kind), 1, dir));
    await expect(
      readSnapshot(replay(cosineChunks), metricShape(metric), () => collection(kind, true, metric), dir),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    await expect(
      readSnapshot(replay(cosineChunks), metricShape(), () => collection(kind, true, metric), dir),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    // writing with a shape naming another metric is a mistake, refused
    await expect(bytes(writeSnapshot(original, metricShape(other), 1, dir))).rejects.toBeInstanceOf(SnapshotMismatchError);
  });
});
