import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { yieldToEventLoop } from './background';
import { HnswIndex, type HnswSeed } from './hnsw-index';
import { IvfIndex, type IvfSeed } from './ivf-index';
import type { Metadata } from './filter';
import type { IndexKind, Metric, Seq } from './types';
import type { IndexSeed, VectorCollection } from './vector-collection';

/**
 * A table's snapshot: its rows (ids, metadata, vectors, and each label's state and change
 * seq) and its default index's structure (the hnswlib graph file, or the ivf model and
 * lists), as one byte stream of frames. The stream says what it holds (format version,
 * dimension, metric, index kind, fingerprint of the index options) so a loader can refuse
 * one made for another table shape (a header without a metric is of a cosine table), and
 * ends with a frame count so a truncated stream is refused even before the store's
 * checksum is checked.
 *
 * Frame: [tag u8][length u32 LE][payload]. Little-endian throughout.
 */
export const SNAPSHOT_FORMAT_VERSION = 1;

const MAGIC = 0x314e5356; // "VSN1"
const Tag = {
  Header: 1,
  Rows: 2,
  HnswMeta: 3,
  HnswStates: 4,
  HnswFile: 5,
  IvfMeta: 6,
  IvfCentroids: 7,
  IvfLists: 8,
  End: 9,
} as const;
type Tag = (typeof Tag)[keyof typeof Tag];

/** Largest payload a frame carries (rows are blocked to stay below it). */
const FRAME_BYTES = 4 * 1024 * 1024;

export interface SnapshotShape {
  readonly dimension: number;
  readonly indexKind: IndexKind;
  /** The index options that shape the stored structure (a change makes old snapshots useless). */
  readonly fingerprint: string;
  /**
   * The table's metric, when the caller knows it: a snapshot of another one is refused
   * before anything is built. Either way the snapshot's metric must be the metric of the
   * collection `create()` makes (vectors are stored per metric: normalised or raw).
   */
  readonly metric?: Metric;
}

interface Header extends SnapshotShape {
  readonly magic: number;
  /** Absent in snapshots written before metrics existed: those are of cosine tables. */
  readonly metric?: Metric;
  readonly formatVersion: number;
  readonly seq: Seq;
}

export class SnapshotMismatchError extends Error {}
export class SnapshotFormatError extends Error {}

function frame(tag: Tag, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, tag);
  view.setUint32(1, payload.byteLength, true);
  out.set(payload, 5);
  return out;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const jsonFrame = (tag: Tag, value: unknown): Uint8Array => frame(tag, utf8.encode(JSON.stringify(value)));
const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Rows frame: [from u32][count u32][alive u32][jsonBytes u32][state count][pad to 8][seqOf count×8][vectors alive×dim×4][json]. */
function rowsFrame(collection: VectorCollection, from: number, count: number): { bytes: Uint8Array; next: number } {
  const block = collection.exportBlock(from, count);
  const n = block.state.length;
  const json = utf8.encode(JSON.stringify(block.rows));
  const stateEnd = 16 + n;
  const seqStart = Math.ceil(stateEnd / 8) * 8;
  const vecStart = seqStart + n * 8;
  const jsonStart = vecStart + block.vectors.byteLength;
  const payload = new Uint8Array(jsonStart + json.byteLength);
  const view = new DataView(payload.buffer);
  view.setUint32(0, from, true);
  view.setUint32(4, n, true);
  view.setUint32(8, block.rows.length, true);
  view.setUint32(12, json.byteLength, true);
  payload.set(block.state, 16);
  payload.set(bytesOf(block.seqOf), seqStart);
  payload.set(bytesOf(block.vectors), vecStart);
  payload.set(json, jsonStart);
  return { bytes: frame(Tag.Rows, payload), next: from + n };
}

function parseRows(payload: Uint8Array, dimension: number): Parameters<VectorCollection['importBlock']>[0] {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const from = view.getUint32(0, true);
  const n = view.getUint32(4, true);
  const alive = view.getUint32(8, true);
  const jsonBytes = view.getUint32(12, true);
  const seqStart = Math.ceil((16 + n) / 8) * 8;
  const vecStart = seqStart + n * 8;
  const jsonStart = vecStart + alive * dimension * 4;
  if (jsonStart + jsonBytes !== payload.byteLength) throw new SnapshotFormatError('rows frame has the wrong length');
  const copy = (start: number, bytes: number): ArrayBuffer => payload.slice(start, start + bytes).buffer;
  const rows = JSON.parse(fromUtf8.decode(payload.subarray(jsonStart))) as Array<[string, Metadata | null]>;
  if (!Array.isArray(rows) || rows.length !== alive) throw new SnapshotFormatError('rows frame lists the wrong number of rows');
  return {
    from,
    state: payload.slice(16, 16 + n),
    seqOf: new Float64Array(copy(seqStart, n * 8)),
    vectors: new Float32Array(copy(vecStart, alive * dimension * 4)),
    rows,
  };
}

/** Labels per rows frame: about FRAME_BYTES of vectors. */
function labelsPerFrame(dimension: number): number {
  return Math.max(64, Math.floor(FRAME_BYTES / (dimension * 4 + 9)));
}

function* chunksOf(bytes: Uint8Array, tag: Tag): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += FRAME_BYTES)
    yield frame(tag, bytes.subarray(at, Math.min(bytes.byteLength, at + FRAME_BYTES)));
}

/**
 * Takes a snapshot of the collection as a stream of frames, reflecting at least every
 * change up to `seq` (the caller's applied seq when it starts). Nothing is blocked: the
 * hnsw graph is written by its worker while queries go on, and rows are read a block at a
 * time between event-loop turns while writes go on. Labels changed meanwhile carry their
 * own change seq in the rows and are listed as dirty for the index, so a loader that
 * replays the log after `seq` reaches exactly the state of the log.
 */
export async function* writeSnapshot(
  collection: VectorCollection,
  shape: SnapshotShape,
  seq: Seq,
  tmpDir: string,
): AsyncGenerator<Uint8Array> {
  collection.beginCapture();
  const index = collection.builtIndex();
  const graphPath = join(tmpDir, `snapshot-${randomUUID()}.hnsw`);
  try {
    const graph = index instanceof HnswIndex ? await index.writeGraph(graphPath) : undefined;
    const ivf = index instanceof IvfIndex ? index.exportModel() : null;
    if (shape.metric !== undefined && shape.metric !== collection.metric)
      throw new SnapshotMismatchError(`the table is ${collection.metric}, the snapshot shape says ${shape.metric}`);
    const header: Header = {
      magic: MAGIC,
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      seq,
      ...shape,
      metric: collection.metric,
    };
    let frames = 1;
    yield jsonFrame(Tag.Header, header);
    const step = labelsPerFrame(shape.dimension);
    for (let from = 0; from < collection.store.size;) {
      const { bytes, next } = rowsFrame(collection, from, step);
      from = next;
      frames++;
      yield bytes;
      await yieldToEventLoop();
    }
    const touched = collection.endCapture();
    if (graph) {
      const dirty = [...new Set([...graph.dirty, ...touched])];
      yield jsonFrame(Tag.HnswMeta, { dirty, counts: graph.counts });
      frames++;
      for (const f of chunksOf(graph.inGraph, Tag.HnswStates)) {
        frames++;
        yield f;
      }
      for await (const piece of createReadStream(graphPath, { highWaterMark: FRAME_BYTES })) {
        frames++;
        yield frame(Tag.HnswFile, piece as Buffer);
      }
    }
    if (ivf) {
      const { centroids, listOf, ...meta } = ivf;
      yield jsonFrame(Tag.IvfMeta, { ...meta, dirty: touched });
      frames++;
      for (const f of chunksOf(bytesOf(centroids), Tag.IvfCentroids)) {
        frames++;
        yield f;
      }
      for (const f of chunksOf(bytesOf(listOf), Tag.IvfLists)) {
        frames++;
        yield f;
      }
    }
    const end = new Uint8Array(4);
    new DataView(end.buffer).setUint32(0, frames, true);
    yield frame(Tag.End, end);
  } finally {
    collection.endCapture();
    await rm(graphPath, { force: true });
  }
}

/** Reads exact byte counts from an async stream of chunks. */
class ByteReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private readonly it: AsyncIterator<Uint8Array>;
  private ended = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Exactly n bytes, or null at a clean end of the stream (nothing buffered). */
  async read(n: number): Promise<Uint8Array | null> {
    while (this.buffered < n && !this.ended) {
      const r = await this.it.next();
      if (r.done) this.ended = true;
      else if (r.value.byteLength > 0) {
        this.chunks.push(r.value);
        this.buffered += r.value.byteLength;
      }
    }
    if (this.buffered < n) {
      if (this.buffered === 0 && this.ended) return null;
      throw new SnapshotFormatError('snapshot ends in the middle of a frame');
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.chunks[0];
      const take = Math.min(head.byteLength, n - at);
      out.set(head.subarray(0, take), at);
      at += take;
      if (take === head.byteLength) this.chunks.shift();
      else this.chunks[0] = head.subarray(take);
    }
    this.buffered -= n;
    return out;
  }

  /** Reads to the end (the store checks the checksum there and throws if it differs). */
  async drain(): Promise<void> {
    while (!this.ended) {
      const r = await this.it.next();
      if (r.done) this.ended = true;
      else if (r.value.byteLength > 0) throw new SnapshotFormatError('bytes after the end frame');
    }
  }
}

export interface LoadedSnapshot {
  readonly collection: VectorCollection;
  readonly seq: Seq;
}

/**
 * Builds a collection from a snapshot stream: rows first (into `create()`'s collection,
 * whose indexes are deferred), then the default index from the stored structure (the
 * hnswlib file is read by the new worker; rows not in it, or changed while it was written,
 * are added again). Throws SnapshotMismatchError when the snapshot was made for another
 * shape, and any error of the stream (a corrupt or partial snapshot): the caller then
 * loads the table another way. The collection is closed on failure.
 */
export async function readSnapshot(
  source: AsyncIterable<Uint8Array>,
  expected: SnapshotShape,
  create: () => VectorCollection,
  tmpDir: string,
): Promise<LoadedSnapshot> {
  const reader = new ByteReader(source);
  const graphPath = join(tmpDir, `load-${randomUUID()}.hnsw`);
  let collection: VectorCollection | undefined;
  let graphFile: Awaited<ReturnType<typeof open>> | undefined;
  try {
    let frames = 0;
    const next = async (): Promise<{ tag: Tag; payload: Uint8Array }> => {
      const head = await reader.read(5);
      if (!head) throw new SnapshotFormatError('snapshot ends before its end frame');
      const view = new DataView(head.buffer);
      const payload = (await reader.read(view.getUint32(1, true))) ?? new Uint8Array(0);
      frames++;
      return { tag: view.getUint8(0) as Tag, payload };
    };
    const first = await next();
    if (first.tag !== Tag.Header) throw new SnapshotFormatError('snapshot does not start with its header');
    const header = JSON.parse(fromUtf8.decode(first.payload)) as Header;
    if (header.magic !== MAGIC || header.formatVersion !== SNAPSHOT_FORMAT_VERSION)
      throw new SnapshotMismatchError(`snapshot format ${header.formatVersion} is not ${SNAPSHOT_FORMAT_VERSION}`);
    const metric = header.metric ?? 'cosine';
    if (
      header.dimension !== expected.dimension ||
      header.indexKind !== expected.indexKind ||
      header.fingerprint !== expected.fingerprint ||
      (expected.metric !== undefined && metric !== expected.metric)
    )
      throw new SnapshotMismatchError(
        `snapshot is of ${header.indexKind}/${header.dimension}/${metric}/${header.fingerprint}, the table is ${expected.indexKind}/${expected.dimension}/${expected.metric ?? '?'}/${expected.fingerprint}`,
      );
    const built = create();
    collection = built;
    if (built.metric !== metric)
      throw new SnapshotMismatchError(`snapshot is of a ${metric} table, the table is ${built.metric}`);
    let hnswMeta: { dirty: number[] } | undefined;
    const states: Uint8Array[] = [];
    let ivfMeta: Omit<IvfSeed, 'centroids' | 'listOf'> | undefined;
    const centroids: Uint8Array[] = [];
    const lists: Uint8Array[] = [];
    for (;;) {
      const { tag, payload } = await next();
      if (tag === Tag.End) {
        if (new DataView(payload.buffer).getUint32(0, true) !== frames - 1)
          throw new SnapshotFormatError('snapshot frame count differs');
        break;
      }
      switch (tag) {
        case Tag.Rows:
          built.importBlock(parseRows(payload, expected.dimension));
          await yieldToEventLoop();
          break;
        case Tag.HnswMeta:
          hnswMeta = JSON.parse(fromUtf8.decode(payload)) as { dirty: number[] };
          graphFile = await open(graphPath, 'w');
          break;
        case Tag.HnswStates:
          states.push(payload);
          break;
        case Tag.HnswFile:
          if (!graphFile) throw new SnapshotFormatError('graph bytes before the graph header');
          await graphFile.write(payload);
          break;
        case Tag.IvfMeta:
          ivfMeta = JSON.parse(fromUtf8.decode(payload)) as Omit<IvfSeed, 'centroids' | 'listOf'>;
          break;
        case Tag.IvfCentroids:
          centroids.push(payload);
          break;
        case Tag.IvfLists:
          lists.push(payload);
          break;
        case Tag.Header:
          throw new SnapshotFormatError('a second header');
        default:
          throw new SnapshotFormatError(`unknown frame ${String(tag)}`);
      }
    }
    await reader.drain(); // the whole stream read: a checksum mismatch has thrown by now
    await graphFile?.close();
    graphFile = undefined;
    let seed: IndexSeed = {};
    if (expected.indexKind === 'hnsw') {
      // A table without a graph yet (all rows growing) is still loaded from the snapshot.
      const hnsw: HnswSeed = hnswMeta
        ? { graphPath, inGraph: concat(states), dirty: hnswMeta.dirty }
        : { inGraph: new Uint8Array(0), dirty: [] };
      seed = { hnsw };
    } else if (ivfMeta && expected.indexKind === 'ivf') {
      const ivf: IvfSeed = {
        ...ivfMeta,
        centroids: new Float32Array(concat(centroids).buffer),
        listOf: new Int32Array(concat(lists).buffer),
      };
      seed = { ivf };
    }
    built.changes = 0;
    built.warm(seed);
    const index = built.builtIndex();
    if (index instanceof HnswIndex && seed.hnsw) await index.loaded;
    return { collection: built, seq: header.seq };
  } catch (err) {
    collection?.close();
    throw err;
  } finally {
    await graphFile?.close();
    await rm(graphPath, { force: true });
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
