import { Inject, Injectable, Logger } from '@nestjs/common';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { VectorConfig } from '../config';
import { type Seq, toSeq } from '../engine/types';
import { DEFAULT_HNSW_OPTIONS } from '../engine/hnsw-index';
import { readSnapshot, SNAPSHOT_FORMAT_VERSION, type SnapshotShape, writeSnapshot } from '../engine/snapshot';
import type { VectorCollection } from '../engine/vector-collection';
import { SNAPSHOT_STORE, type SnapshotInfo, type SnapshotStore } from './snapshot-store';
import type { TableHead } from '../tables/tables.repository';

/** The last snapshot a table's memory is known to match (loaded from, or written by this instance). */
export interface SnapshotMark {
  readonly seq: Seq;
  readonly bytes: number;
  /** Milliseconds the write took (0 when loaded). */
  readonly writeMs: number;
  /** Milliseconds the load took (0 when written here). */
  readonly loadMs: number;
  /** performance.now() of the write or load. */
  readonly at: number;
}

/** What a table snapshot must match to be loaded: the metric and the index options that shape it. */
export function snapshotShape(head: Pick<TableHead, 'dimension' | 'indexKind' | 'metric'>): SnapshotShape {
  const { m, efConstruction, seed } = DEFAULT_HNSW_OPTIONS;
  // The metric decides what the stored vectors and structure are (normalised or raw, the
  // graph's space): a snapshot of another metric must not load.
  const fingerprint =
    head.indexKind === 'hnsw'
      ? `hnsw/${head.metric}/m=${m}/efc=${efConstruction}/seed=${seed}`
      : `${head.indexKind}/${head.metric}`;
  return { dimension: head.dimension, indexKind: head.indexKind, fingerprint, metric: head.metric };
}

/**
 * Loads and writes table snapshots through the SnapshotStore (PostgreSQL, or the shared
 * VECTOR_SNAPSHOT_DIR), so a starting instance, here or on another machine, reads a table's
 * rows and index structure instead of rebuilding the index. A snapshot that cannot be used
 * (corrupt, partial, another format or shape) is skipped with a warning: it may cost time,
 * never correctness.
 */
@Injectable()
export class TableSnapshots {
  private readonly logger = new Logger('VectorSnapshots');
  private tmp: Promise<string> | undefined;

  constructor(
    @Inject(SNAPSHOT_STORE) private readonly store: SnapshotStore,
    private readonly config: VectorConfig,
  ) {}

  /** A private temporary directory for hnswlib's graph files (it reads and writes paths only). */
  private tmpDir(): Promise<string> {
    this.tmp ??= mkdtemp(join(tmpdir(), 'vector-snapshots-'));
    return this.tmp;
  }

  async close(): Promise<void> {
    if (this.tmp) await rm(await this.tmp, { recursive: true, force: true });
    this.tmp = undefined;
  }

  /** The newest usable snapshot loaded into a new collection, or null (none, or none usable). */
  async load(
    head: TableHead,
    create: () => VectorCollection,
  ): Promise<{ collection: VectorCollection; mark: SnapshotMark } | null> {
    if (!this.config.VECTOR_SNAPSHOTS) return null;
    const shape = snapshotShape(head);
    let candidates: SnapshotInfo[];
    try {
      candidates = await this.store.list(head.id);
    } catch (err) {
      this.logger.warn({ err, table: head.name }, 'could not list snapshots; loading the table from its rows');
      return null;
    }
    for (const info of candidates) {
      if (info.formatVersion !== SNAPSHOT_FORMAT_VERSION || info.fingerprint !== shape.fingerprint) continue;
      const started = performance.now();
      try {
        const { collection, seq } = await readSnapshot(this.store.read(info), shape, create, await this.tmpDir());
        const loadMs = Math.round(performance.now() - started);
        this.logger.log({ table: head.name, seq, bytes: info.bytes, ms: loadMs }, 'vector table loaded from its snapshot');
        return { collection, mark: { seq, bytes: info.bytes, writeMs: 0, loadMs, at: performance.now() } };
      } catch (err) {
        this.logger.warn({ err, table: head.name, snapshot: info.id }, 'snapshot unusable; trying an older one or the rows');
      }
    }
    return null;
  }

  /** Writes a snapshot of the table as of (at least) `seq`, then keeps only the newest few. */
  async write(
    head: Pick<TableHead, 'id' | 'name' | 'dimension' | 'indexKind' | 'metric'>,
    collection: VectorCollection,
    seq: bigint,
  ): Promise<SnapshotMark> {
    const started = performance.now();
    const shape = snapshotShape(head);
    const info = await this.store.write(
      head.id,
      { seq, formatVersion: SNAPSHOT_FORMAT_VERSION, fingerprint: shape.fingerprint },
      writeSnapshot(collection, shape, toSeq(seq), await this.tmpDir()),
    );
    const writeMs = Math.round(performance.now() - started);
    await this.store.prune(head.id, this.config.VECTOR_SNAPSHOT_KEEP);
    this.logger.log({ table: head.name, seq: toSeq(seq), bytes: info.bytes, ms: writeMs }, 'vector table snapshot written');
    return { seq: toSeq(seq), bytes: info.bytes, writeMs, loadMs: 0, at: performance.now() };
  }

  /** Removes a dropped table's snapshots (PostgreSQL's cascade already does; a directory needs it). */
  async forget(tableId: string): Promise<void> {
    try {
      await this.store.deleteTable(tableId);
    } catch (err) {
      this.logger.warn({ err, tableId }, 'could not remove the snapshots of a dropped table');
    }
  }

  /** The newest published snapshot's seq (another instance may have written it), or -1. */
  async newestSeq(tableId: string): Promise<number> {
    const [best] = await this.store.list(tableId);
    return best ? toSeq(best.seq) : -1;
  }
}
