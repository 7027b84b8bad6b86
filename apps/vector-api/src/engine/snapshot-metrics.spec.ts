/** Snapshots of dot and euclidean tables (snapshot.spec.ts has the format, round trips and refusals of cosine ones). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answers, bytes, COUNT, DIM, queries, replay, rows, shape } from '../../../../test/support/snapshot-fixture';
import { parseFilter } from './filter';
import { readSnapshot, SnapshotMismatchError, type SnapshotShape, writeSnapshot } from './snapshot';
import type { IndexKind, Metric } from './types';
import { VectorCollection } from './vector-collection';

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

describe('snapshot header without a metric (written before tables had one)', () => {
  it('is a cosine table: loaded by a cosine table, refused by another metric', async () => {
    const original = collection('ivf');
    original.insert(rows.slice(0, COUNT), 1);
    await original.idle();
    const chunks = await bytes(writeSnapshot(original, shape('ivf'), 1, dir));
    // The header is the first frame: [tag][length u32][json]; rewrite it without `metric`.
    const head = chunks[0];
    const json = JSON.parse(new TextDecoder().decode(head.subarray(5))) as Record<string, unknown>;
    expect(json.metric).toBe('cosine');
    delete json.metric;
    const payload = new TextEncoder().encode(JSON.stringify(json));
    const legacy = new Uint8Array(5 + payload.byteLength);
    legacy[0] = head[0];
    new DataView(legacy.buffer).setUint32(1, payload.byteLength, true);
    legacy.set(payload, 5);
    const old = [legacy, ...chunks.slice(1)];
    const loaded = await readSnapshot(replay(old), shape('ivf'), () => collection('ivf', true), dir);
    expect(loaded.collection.metric).toBe('cosine');
    await loaded.collection.idle();
    expect(await answers(loaded.collection)).toEqual(await answers(original));
    await expect(
      readSnapshot(replay(old), { ...shape('ivf'), metric: 'dot' }, () => collection('ivf', true, 'dot'), dir),
    ).rejects.toBeInstanceOf(SnapshotMismatchError);
    await expect(readSnapshot(replay(old), shape('ivf'), () => collection('ivf', true, 'euclidean'), dir)).rejects.toBeInstanceOf(
      SnapshotMismatchError,
    );
  });
});
