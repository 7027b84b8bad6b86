/**
 * What the engine's snapshot specs share (snapshot.spec.ts, snapshot-metrics.spec.ts): a
 * clustered table of 3,500 rows with metadata, held-out queries, a test shape, and helpers to
 * collect a snapshot's bytes, replay them, and compare answers.
 */
import { parseFilter } from '../../apps/vector-api/src/engine/filter';
import type { SnapshotShape } from '../../apps/vector-api/src/engine/snapshot';
import type { IndexKind } from '../../apps/vector-api/src/engine/types';
import type { CollectionRow, VectorCollection } from '../../apps/vector-api/src/engine/vector-collection';
import { clusteredVectors } from './random';

export const DIM = 24;
export const COUNT = 3000;
const { vectors } = clusteredVectors(41, COUNT + 600, DIM, 30);

/** COUNT rows for a snapshot, and 500 more for changes after it. */
export const rows: CollectionRow[] = vectors.slice(0, COUNT + 500).map((embedding, i) => ({
  id: `v${i}`,
  label: i,
  embedding,
  metadata: { parity: i % 2 === 0 ? 'even' : 'odd', n: i },
}));
export const queries = vectors.slice(COUNT + 500);

export const shape = (kind: IndexKind): SnapshotShape => ({ dimension: DIM, indexKind: kind, fingerprint: `${kind}-test` });

/** A snapshot stream's chunks, copied. */
export async function bytes(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of source) out.push(chunk.slice());
  return out;
}

export async function* replay(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield await Promise.resolve(c);
}

/** The ids of each query's top 10 among the even rows. */
export async function answers(c: VectorCollection, kind?: IndexKind): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of queries) out.push((await c.query(q, 10, parseFilter({ parity: 'even' }), kind)).hits.map((h) => h.id));
  return out;
}
