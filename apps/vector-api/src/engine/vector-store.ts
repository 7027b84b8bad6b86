import { createScanKernel, type ScanKernel } from './simd';

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

export interface VectorStoreOptions {
  /**
   * false forces the JavaScript scan (tests compare both paths; a runtime without
   * WebAssembly SIMD gets it anyway). Default: WebAssembly SIMD when available.
   */
  readonly simd?: boolean;
}

/**
 * Every row's L2-normalised vector, addressed by label, so a dot product is the cosine.
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
  /** Written over a deleted row in the kernel, so a scan scores it 0 and rarely asks about it. */
  private readonly zeros: Float32Array;

  constructor(
    readonly dim: number,
    initialCapacity = 1024,
    options: VectorStoreOptions = {},
  ) {
    this.state = new Uint8Array(initialCapacity);
    this.seqOf = new Float64Array(initialCapacity);
    this.kernel = createScanKernel(dim, initialCapacity, { simd: options.simd ?? true });
    this.zeros = new Float32Array(dim);
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
   * Stores an already normalised vector as written by change `seq` (0 = unknown order,
   * accepted only over an empty slot). Returns false when the label holds a write at
   * least as new (stale replay), or seq 0 meets a used slot.
   */
  put(label: number, normalized: Float32Array, seq = 0): boolean {
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
  delete(label: number, seq = 0, keepSeq = false): boolean {
    if (this.isAlive(label) && (seq === 0 || seq > this.seqOf[label])) {
      this.state[label] = SlotState.Deleted;
      if (!keepSeq) this.seqOf[label] = seq;
      this.kernel.set(label, this.zeros);
      this.alive--;
      return true;
    }
    // A delete newer than what a dead slot holds still records its seq, so an older insert
    // replayed later (the log after a snapshot, a slow poll) cannot bring the row back.
    if (!this.isAlive(label) && seq > this.seq(label)) this.tombstone(label, seq);
    return false;
  }

  /** Marks a label that holds no row as deleted by change `seq`. */
  private tombstone(label: number, seq: number): void {
    if (label >= this.capacity) this.grow(label + 1);
    this.state[label] = SlotState.Deleted;
    this.seqOf[label] = seq;
    if (label >= this.size) this.size = label + 1;
    if (this.kernel.size <= label) this.kernel.set(label, this.zeros);
  }

  /** A view of the row's vector in the kernel: read it at once (see the class comment). */
  vector(label: number): Float32Array {
    return this.kernel.row(label);
  }

  dot(label: number, q: Float32Array): number {
    return dotAt(this.kernel.row(label), 0, q, this.dim);
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
