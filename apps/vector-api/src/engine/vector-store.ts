import { createScanKernel, type ScanKernel } from './simd';

/** Slot states of a label. A label is never reused once deleted (labels only grow). */
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
 * Two copies of each row are kept:
 * - `kernel`: the scan kernel's block (WebAssembly memory, or its JS fallback's buffer),
 *   row `label` = kernel row `label`. Exact scans run there: flat at memory bandwidth,
 *   the planner's scan of a filter's rows, rows not yet in an index (ivf keeps its lists
 *   in a kernel of its own, see ivf-index.ts).
 * - `data`: a contiguous Float32Array (row `label` at [label·dim, (label+1)·dim)) for
 *   reading single vectors: index builds (hnswlib wants an Array per point, ivf training
 *   copies rows to a worker) and the few exact rescorings of hnsw hits.
 * The kernel's `row()` view is invalidated when any kernel's memory grows, and reads
 * happen while other kernels (ivf lists, centroids) are being written, so single reads
 * use this second copy. Both are written only here, so they cannot diverge.
 */
export class VectorStore {
  data: Float32Array;
  state: Uint8Array;
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
    this.data = new Float32Array(initialCapacity * dim);
    this.state = new Uint8Array(initialCapacity);
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

  private grow(minCapacity: number): void {
    let cap = Math.max(this.capacity, 16);
    while (cap < minCapacity) cap *= 2;
    const data = new Float32Array(cap * this.dim);
    data.set(this.data.subarray(0, this.size * this.dim));
    const state = new Uint8Array(cap);
    state.set(this.state.subarray(0, this.size));
    this.data = data;
    this.state = state;
  }

  isAlive(label: number): boolean {
    return label < this.size && this.state[label] === SlotState.Alive;
  }

  /** Stores an already normalised vector. Returns false if the label was ever used. */
  put(label: number, normalized: Float32Array): boolean {
    if (label < this.size && this.state[label] !== SlotState.Empty) return false;
    if (normalized.length !== this.dim) throw new RangeError(`vector has ${normalized.length} dimensions, expected ${this.dim}`);
    if (label >= this.capacity) this.grow(label + 1);
    this.data.set(normalized, label * this.dim);
    this.kernel.set(label, normalized);
    this.state[label] = SlotState.Alive;
    if (label >= this.size) this.size = label + 1;
    this.alive++;
    return true;
  }

  delete(label: number): boolean {
    if (!this.isAlive(label)) return false;
    this.state[label] = SlotState.Deleted;
    this.data.fill(0, label * this.dim, (label + 1) * this.dim);
    this.kernel.set(label, this.zeros);
    this.alive--;
    return true;
  }

  vector(label: number): Float32Array {
    return this.data.subarray(label * this.dim, (label + 1) * this.dim);
  }

  dot(label: number, q: Float32Array): number {
    return dotAt(this.data, label * this.dim, q, this.dim);
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
