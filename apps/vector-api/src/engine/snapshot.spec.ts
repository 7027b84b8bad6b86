import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answers, bytes, COUNT, DIM, replay, rows, shape } from '../../../../test/support/snapshot-fixture';
import { readSnapshot, SnapshotFormatError, SnapshotMismatchError, writeSnapshot } from './snapshot';
import type { IndexKind } from './types';
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

function collection(kind: IndexKind, deferIndex = false): VectorCollection {
  const c = new VectorCollection(DIM, kind, {
    ivf: { minRows: 1000 },
    deferIndex,
    onError: (err) => {
      throw err;
    },
  });
  open.push(c);
  return c;
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
    const q = rows[COUNT + 300].embedding;
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
