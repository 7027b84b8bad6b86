import { createHash, type Hash } from 'node:crypto';

/**
 * Size of the pieces a payload is stored and checked in (a PostgreSQL row, a hashed range of
 * a file). 8 MiB: the measurement (bench/vector/snapshot-store.ts, docs/decisions.md) found
 * no throughput gained above it, and a store keeps only a few chunks in memory each way.
 */
export const SNAPSHOT_CHUNK_BYTES = 8 * 1024 * 1024;

/** Unpublished (partial) writes older than this are removed by prune() unless it is given another age. */
export const SNAPSHOT_STALE_MS = 60 * 60 * 1000;

/** Injection token of the SnapshotStore the SnapshotsModule provides. */
export const SNAPSHOT_STORE = Symbol('SNAPSHOT_STORE');

export interface SnapshotHeader {
  /** The table's change sequence the snapshot contains everything up to. */
  readonly seq: bigint;
  readonly formatVersion: number;
  /** What the engine must match to load it (its parameters), opaque to the store. */
  readonly fingerprint: string;
}

export interface SnapshotInfo extends SnapshotHeader {
  readonly id: string;
  readonly tableId: string;
  /** Payload length. */
  readonly bytes: number;
  /** Hex SHA-256 of the whole payload. */
  readonly sha256: string;
  /** When its write began (PostgreSQL: the database's clock; directory: the writer's). */
  readonly createdAt: Date;
  /** Number of stored chunks (ceil(bytes / SNAPSHOT_CHUNK_BYTES) as written). */
  readonly chunks: number;
}

/** The stored payload is not the one that was published: missing chunks, another length, another hash. */
export class SnapshotCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotCorruptError';
  }
}

export interface SnapshotStore {
  readonly kind: 'postgres' | 'directory';
  /** Streams the payload in (any chunk sizes). Publishes atomically only after every byte is stored and the sha256 and byte count are recorded; a failure or a crash at any moment leaves nothing that list() returns. */
  write(tableId: string, header: SnapshotHeader, payload: AsyncIterable<Uint8Array>): Promise<SnapshotInfo>;
  /** Published snapshots of the table, best first (highest seq, then newest). */
  list(tableId: string): Promise<SnapshotInfo[]>;
  /** Streams the payload back in order. Must throw SnapshotCorruptError (never yield silently wrong data as complete) when chunks are missing, the length differs, or the sha256 of all bytes differs — the check of the whole may happen after the last chunk was yielded (consumers discard everything then), but a per-chunk check that fails early is better. */
  read(info: SnapshotInfo): AsyncIterable<Uint8Array>;
  /** Keeps the `keep` best published snapshots of the table and deletes the rest, plus unpublished (partial) writes older than `staleMs`. */
  prune(tableId: string, keep: number, staleMs?: number): Promise<void>;
  /** Removes every snapshot of the table (table dropped). */
  deleteTable(tableId: string): Promise<void>;
}

/** Best first: highest seq, then newest, then id (so equal snapshots still have one order). */
export function compareSnapshots(a: SnapshotInfo, b: SnapshotInfo): number {
  if (a.seq !== b.seq) return a.seq > b.seq ? -1 : 1;
  const age = b.createdAt.getTime() - a.createdAt.getTime();
  if (age !== 0) return age;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Regroups a payload of any piece sizes into chunks of exactly `chunkBytes` (the last one
 * shorter, none when the payload is empty). Each chunk is a fresh buffer the consumer may
 * keep; at most one is being filled at a time.
 */
export async function* rechunk(payload: AsyncIterable<Uint8Array>, chunkBytes: number): AsyncGenerator<Buffer> {
  let chunk = Buffer.allocUnsafe(chunkBytes);
  let filled = 0;
  for await (const piece of payload) {
    let offset = 0;
    while (offset < piece.byteLength) {
      const take = Math.min(chunkBytes - filled, piece.byteLength - offset);
      chunk.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === chunkBytes) {
        yield chunk;
        chunk = Buffer.allocUnsafe(chunkBytes);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}

export const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * What a reader checks as the chunks go by: each chunk's own hash (early failure), the
 * running length against the published one, and at the end the hash of all bytes.
 */
export class PayloadVerifier {
  private readonly whole: Hash = createHash('sha256');
  private seen = 0;

  constructor(private readonly info: SnapshotInfo) {}

  /** Checks chunk `n` against its recorded hash (when there is one) and the running length. */
  chunk(n: number, data: Uint8Array, expectedSha256?: string): void {
    if (expectedSha256 !== undefined && sha256Hex(data) !== expectedSha256) {
      throw new SnapshotCorruptError(`snapshot ${this.info.id}: chunk ${n} does not match its sha256`);
    }
    this.seen += data.byteLength;
    if (this.seen > this.info.bytes) {
      throw new SnapshotCorruptError(`snapshot ${this.info.id}: more than the published ${this.info.bytes} bytes`);
    }
    this.whole.update(data);
  }

  /** After the last chunk: the length and the hash of all bytes. */
  end(): void {
    if (this.seen !== this.info.bytes) {
      throw new SnapshotCorruptError(`snapshot ${this.info.id}: ${this.seen} bytes stored, ${this.info.bytes} published`);
    }
    const sha256 = this.whole.digest('hex');
    if (sha256 !== this.info.sha256) {
      throw new SnapshotCorruptError(
        `snapshot ${this.info.id}: sha256 ${sha256} of the stored bytes, ${this.info.sha256} published`,
      );
    }
  }
}
