import { createScanKernel, type ScanKernel } from './simd';
import type { Metric, Seq } from './types';

/** Slot states of a label. A deleted label may be written again (labels are reused). */
export const SlotState = { Empty: 0, Alive: 1, Deleted: 2 } as const;

/** In-place L2 normalisation; a zero vector stays zero (its cosine with anything is 0). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] = v[i] * inv;
  }
  return v;
}

export function toNormalized(values: ArrayLike<number>): Float32Array {
  return normalize(Float32Array.from(values));
}

/** A vector (row or query) as the engine holds it for the metric: normalised for cosine, else as float32. */
export function toStored(values: ArrayLike<number>, metric: Metric): Float32Array {
  return metric === 'cosine' ? toNormalized(values) : Float32Array.from(values);
}

/**
 * The contract's score from a similarity (Hit.score) and the query as stored (toStored):
 * cosine clamped to [0, 1]; dot as is; euclidean 1 / (1 + ‖q − x‖), with ‖q − x‖² =
 * ‖q‖² − 2·similarity (clamped at 0). `queryNormSq` is ‖q‖² (euclidean only).
 */
export function scoreOf(metric: Metric, similarity: number, queryNormSq = 0): number {
  if (metric === 'cosine') return Math.min(1, Math.max(0, similarity));
  if (metric === 'dot') return similarity;
  return 1 / (1 + Math.sqrt(Math.max(0, queryNormSq - 2 * similarity)));
}

export interface VectorStoreOptions {
  /**
   * false forces the JavaScript scan (tests compare both paths; a runtime without
   * WebAssembly SIMD gets it anyway). Default: WebAssembly SIMD when available.
   */
  readonly simd?: boolean;
  /** How rows are compared (see Hit); the caller stores vectors as toStored makes them. Default cosine. */
  readonly metric?: Metric;
}

/**
 * Every row's vector, addressed by label: L2-normalised for cosine (a dot product is then
 * the cosine), as given for dot and euclidean. Scores are similarities (see Hit): the
 * kernel, built for the metric, computes them.
 *
 * One copy of each vector: the scan kernel's block (WebAssembly memory, or its JS
 * fallback's buffer), row `label` = kernel row `label`. Exact scans run there, and single
 * vectors are read from it through short-lived views (`vector()`: use it at once, a later
 * write that grows the kernel replaces its memory). The index workers get copies of the
 * rows they add, which they keep in their own structure (hnswlib's graph).
 *
 * Each label also keeps the change-log seq that last wrote it (`seqOf`): a write carrying
 * an older seq than the label's is stale and ignored. So changes may be applied in any
 * order (a local commit before a remote one it follows, a snapshot's rows before the log
 * after it), labels can be reused after a delete, and the end state is the log's.
 */
export class VectorStore {
  state: Uint8Array;
  seqOf: Float64Array;
  readonly kernel: ScanKernel;
  /** One past the largest label ever stored. */
  size = 0;
  alive = 0;
  readonly metric: Metric;

  constructor(
    readonly dim: number,
    initialCapacity = 1024,
    options: VectorStoreOptions = {},
  ) {
    this.metric = options.metric ?? 'cosine';
    this.state = new Uint8Array(initialCapacity);
    this.seqOf = new Float64Array(initialCapacity);
    this.kernel = createScanKernel(dim, initialCapacity, { simd: options.simd ?? true, metric: this.metric });
  }

  /** True when exact scans run on the WebAssembly SIMD kernel (false: JavaScript fallback). */
  get simd(): boolean {
    return this.kernel.simd;
  }

  get capacity(): number {
    return this.state.length;
  }

  /** Bytes held for vectors and per-label state. */
  get bytes(): number {
    return this.kernel.bytes + this.state.byteLength + this.seqOf.byteLength;
  }

  private grow(minCapacity: number): void {
    let cap = Math.max(this.capacity, 16);
    while (cap < minCapacity) cap = Math.ceil(cap * 1.5);
    const state = new Uint8Array(cap);
    state.set(this.state.subarray(0, this.size));
    const seqOf = new Float64Array(cap);
    seqOf.set(this.seqOf.subarray(0, this.size));
    this.state = state;
    this.seqOf = seqOf;
  }

  /** Makes room for labels below `labels` at once (bulk loads). */
  reserve(labels: number): void {
    if (labels > this.capacity) this.grow(labels);
  }

  isAlive(label: number): boolean {
    return label < this.size && this.state[label] === SlotState.Alive;
  }

  /** The seq that last wrote the label (0: never written). */
  seq(label: number): number {
    return label < this.size ? this.seqOf[label] : 0;
  }

  /**
   * Stores a vector already as toStored makes it (normalised for cosine) as written by change `seq` (0 = unknown order,
   * accepted only over an empty slot). Returns false when the label holds a write at
   * least as new (stale replay), or seq 0 meets a used slot.
   */
  put(label: number, normalized: Float32Array, seq: Seq = 0): boolean {
    if (label < this.size && this.state[label] !== SlotState.Empty && (seq === 0 || seq <= this.seqOf[label])) return false;
    if (normalized.length !== this.dim) throw new RangeError(`vector has ${normalized.length} dimensions, expected ${this.dim}`);
    if (label >= this.capacity) this.grow(label + 1);
    this.kernel.set(label, normalized);
    if (this.state[label] !== SlotState.Alive) this.alive++;
    this.state[label] = SlotState.Alive;
    this.seqOf[label] = seq;
    if (label >= this.size) this.size = label + 1;
    return true;
  }

  /**
   * Deletes the row as change `seq` did; false when it is not alive or holds a newer write.
   * `keepSeq` leaves the label's seq as it was (a row removed because its id moved to a
   * newer label: the delete that freed it has not been applied yet, and must still apply).
   */
  delete(label: number, seq: Seq = 0, keepSeq = false): boolean {
    if (this.isAlive(label) && (seq === 0 || seq > this.seqOf[label])) {
      this.state[label] = SlotState.Deleted;
      if (!keepSeq) this.seqOf[label] = seq;
      // Retired in the kernel, so a scan scores it low and rarely asks about it.
      this.kernel.clear(label);
      this.alive--;
      return true;
    }
    // A delete newer than what a dead slot holds still records its seq, so an older insert
    // replayed later (the log after a snapshot, a slow poll) cannot bring the row back.
    if (!this.isAlive(label) && seq > this.seq(label)) this.tombstone(label, seq);
    return false;
  }

  /** Marks a label that holds no row as deleted by change `seq`. */
  private tombstone(label: number, seq: Seq): void {
    if (label >= this.capacity) this.grow(label + 1);
    this.state[label] = SlotState.Deleted;
    this.seqOf[label] = seq;
    if (label >= this.size) this.size = label + 1;
    if (this.kernel.size <= label) this.kernel.clear(label);
  }

  /** A view of the row's vector in the kernel: read it at once (see the class comment). */
  vector(label: number): Float32Array {
    return this.kernel.row(label);
  }

  dot(label: number, q: Float32Array): number {
    return dotAt(this.kernel.row(label), 0, q, this.dim);
  }

  /** The row's similarity to q (Hit.score, as the kernel's scans compute it, but in float64). */
  similarity(label: number, q: Float32Array): number {
    return dotAt(this.kernel.row(label), 0, q, this.dim) - this.kernel.bias(label);
  }

  /**
   * The contract's score of the row for q (a stored query, see toStored), in float64 from
   * the stored float32 values: what the kernel's float32 similarity approximates. For
   * euclidean the distance is summed directly (no cancellation between large norms).
   */
  score(label: number, q: Float32Array): number {
    if (this.metric !== 'euclidean') return scoreOf(this.metric, dotAt(this.kernel.row(label), 0, q, this.dim));
    return 1 / (1 + this.distance(label, q));
  }

  /** The L2 distance of a row's stored vector to `q`, in float64. */
  distance(label: number, q: Float32Array): number {
    const x = this.kernel.row(label);
    let d2 = 0;
    for (let j = 0; j < this.dim; j++) {
      const d = q[j] - x[j];
      d2 += d * d;
    }
    return Math.sqrt(d2);
  }

  /** Labels of live rows, ascending. */
  aliveLabels(): number[] {
    const out: number[] = [];
    for (let l = 0; l < this.size; l++) if (this.state[l] === SlotState.Alive) out.push(l);
    return out;
  }

  /**
   * Scan filter for the kernel: live rows only, then the caller's filter. The kernel asks
   * only about rows that would enter the top k, so this costs nothing per scanned row.
   */
  acceptor(accept?: (label: number) => boolean): (label: number) => boolean {
    const state = this.state;
    return accept === undefined
      ? (label) => state[label] === SlotState.Alive
      : (label) => state[label] === SlotState.Alive && accept(label);
  }
}

/** Dot product of q with data[off .. off+dim), unrolled by 4 (the JS engine keeps it in registers). */
export function dotAt(data: Float32Array, off: number, q: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  const end4 = dim - (dim & 3);
  for (; j < end4; j += 4) {
    s0 += data[off + j] * q[j];
    s1 += data[off + j + 1] * q[j + 1];
    s2 += data[off + j + 2] * q[j + 2];
    s3 += data[off + j + 3] * q[j + 3];
  }
  for (; j < dim; j++) s0 += data[off + j] * q[j];
  return s0 + s1 + s2 + s3;
}
