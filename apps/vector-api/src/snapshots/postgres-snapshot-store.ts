import { createHash, randomUUID } from 'node:crypto';
import {
  PayloadVerifier,
  rechunk,
  sha256Hex,
  SNAPSHOT_CHUNK_BYTES,
  SNAPSHOT_STALE_MS,
  SnapshotCorruptError,
  type SnapshotHeader,
  type SnapshotInfo,
  type SnapshotStore,
} from './snapshot-store';
import type { SnapshotsRepository } from './snapshots.repository';

/**
 * Marks a promise that is awaited later (an insert or a read-ahead running while the payload
 * or the consumer does its part) as handled now, so an early failure is not an unhandled
 * rejection; awaiting the returned promise still throws it.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Snapshots in PostgreSQL (the default): a `vector_snapshots` row, unpublished until every
 * chunk is in `vector_snapshot_chunks` (one row of SNAPSHOT_CHUNK_BYTES each, its own
 * statement), then published by one UPDATE that records the length and the hash. While a
 * chunk is stored the next one is filled from the payload; while one is read the next is
 * fetched: about three chunks in memory either way.
 */
export class PostgresSnapshotStore implements SnapshotStore {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly repository: SnapshotsRepository,
    private readonly chunkBytes = SNAPSHOT_CHUNK_BYTES,
  ) {}

  async write(tableId: string, header: SnapshotHeader, payload: AsyncIterable<Uint8Array>): Promise<SnapshotInfo> {
    const id = randomUUID();
    await this.repository.begin(tableId, id, header);
    const whole = createHash('sha256');
    let bytes = 0;
    let n = 0;
    let storing: Promise<void> | undefined;
    try {
      for await (const chunk of rechunk(payload, this.chunkBytes)) {
        whole.update(chunk);
        bytes += chunk.length;
        const sha256 = sha256Hex(chunk);
        await storing;
        storing = handled(this.repository.insertChunk(id, n, chunk, sha256));
        n += 1;
      }
      await storing;
      storing = undefined;
      const published = await this.repository.publish(id, bytes, whole.digest('hex'), n);
      if (!published) throw new Error(`snapshot ${id} of table ${tableId} was removed before it was published`);
      return published;
    } catch (err) {
      await storing?.catch(() => undefined);
      // best effort: a crash instead leaves the row to prune()
      await this.repository.deleteUnpublished(tableId, id).catch(() => undefined);
      throw err;
    }
  }

  list(tableId: string): Promise<SnapshotInfo[]> {
    return this.repository.listPublished(tableId);
  }

  async *read(info: SnapshotInfo): AsyncGenerator<Uint8Array> {
    const verifier = new PayloadVerifier(info);
    const fetch = (n: number): Promise<{ data: Buffer; sha256: string } | null> => handled(this.repository.readChunk(info.id, n));
    // a read-ahead left behind by a consumer that stops early is already marked handled
    let next = info.chunks > 0 ? fetch(0) : undefined;
    for (let n = 0; n < info.chunks; n++) {
      const chunk = await next;
      next = n + 1 < info.chunks ? fetch(n + 1) : undefined;
      if (!chunk) throw new SnapshotCorruptError(`snapshot ${info.id}: chunk ${n} of ${info.chunks} is missing`);
      verifier.chunk(n, chunk.data, chunk.sha256);
      yield chunk.data;
    }
    verifier.end();
  }

  async prune(tableId: string, keep: number, staleMs = SNAPSHOT_STALE_MS): Promise<void> {
    const published = await this.repository.listPublished(tableId);
    await this.repository.deleteSnapshots(
      tableId,
      published.slice(Math.max(0, keep)).map((s) => s.id),
    );
    await this.repository.deleteStale(tableId, staleMs);
  }

  deleteTable(tableId: string): Promise<void> {
    return this.repository.deleteTable(tableId);
  }
}
