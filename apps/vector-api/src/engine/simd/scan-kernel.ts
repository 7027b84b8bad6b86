import type { Metric } from '../types';
import { SCAN_KERNEL_WAT } from './scan-kernel.wat';
import { type ScanResult, TopN } from './top-n';
import { assembleWat } from './wat-assembler';
import { WASM_PAGE, wasmApi, type WasmMemory, type WasmModule } from './wasm-runtime';

/** The kernel module's exports (pointers and lengths are byte offsets / element counts). */
export interface ScanModuleExports {
  /** out[i] = q · row_i for `count` consecutive rows of `stride` floats starting at `rows`. */
  scan(q: number, rows: number, stride: number, count: number, out: number): void;
  /** out[i] = q · row(idx[i]) for `count` i32 row indexes at `idx`. */
  scanRows(q: number, rows: number, stride: number, idx: number, count: number, out: number): void;
  /** Sum of `bytes` (a multiple of 64) bytes of floats from `p`: a streaming read. */
  sum(p: number, bytes: number): number;
}

/** Rows scored per kernel call: their scores (16 KiB) stay in L1 while the selection reads them. */
const CHUNK = 4096;

let compiled: WasmModule | null | undefined;

/** The compiled kernel, or null when this runtime lacks WebAssembly SIMD. */
function kernelModule(): WasmModule | null {
  if (compiled === undefined) {
    try {
      const bytes = assembleWat(SCAN_KERNEL_WAT);
      compiled = wasmApi?.validate(bytes) ? new wasmApi.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** True when WebAssembly SIMD (f32x4) is available, i.e. the kernel runs compiled. */
export function simdSupported(): boolean {
  return kernelModule() !== null;
}

/** Instantiates the kernel on `memory` (the benchmark also uses `sum` to measure bandwidth). */
export function instantiateScanModule(memory: WasmMemory): ScanModuleExports {
  const mod = kernelModule();
  if (!mod || !wasmApi) throw new Error('WebAssembly SIMD is not available in this runtime');
  return new wasmApi.Instance(mod, { env: { memory } }).exports as ScanModuleExports;
}

/** A WebAssembly memory of at least `bytes` bytes (for instantiateScanModule). */
export function createWasmMemory(bytes: number): WasmMemory {
  if (!wasmApi) throw new Error('WebAssembly is not available in this runtime');
  return new wasmApi.Memory({ initial: Math.max(1, Math.ceil(bytes / WASM_PAGE)) });
}

export interface ScanKernelOptions {
  /** false forces the JavaScript fallback (tests, comparisons). Default: SIMD when available. */
  readonly simd?: boolean;
  /**
   * What a row's score is: q · row for `cosine` (rows and query normalised by the caller)
   * and `dot`; for `euclidean` q · row − ‖row‖²/2, which ranks rows as −‖q − row‖² does.
   * The kernel keeps ‖row‖²/2 per row (float64) and subtracts it as it reads the chunk's
   * dot products, so the SIMD loop is the same for every metric. Default `cosine`.
   */
  readonly metric?: Metric;
}

/**
 * Exact similarity scan (dot products, see ScanKernelOptions.metric) over a contiguous block of vectors. Rows live in the
 * kernel's own memory, `stride` = dimension rounded up to a multiple of 4 with zero padding;
 * row r is label r of the engine's VectorStore. `scan` scores rows [0, size) in chunks of
 * 4096 and keeps the n best in a bounded heap (no full sort); `accept` is asked only about
 * rows that would enter the top n, so a liveness or filter check costs almost nothing.
 */
export interface ScanKernel {
  readonly dimension: number;
  /** Floats between consecutive rows (dimension rounded up to a multiple of 4). */
  readonly stride: number;
  /** True when the WebAssembly SIMD kernel runs, false for the JavaScript fallback. */
  readonly simd: boolean;
  readonly metric: Metric;
  /** One past the highest row written. */
  readonly size: number;
  readonly capacity: number;
  /** Bytes of vector storage held (capacity × stride × 4). */
  readonly bytes: number;
  /** Replaces the contents with `rows` rows of `dimension` floats, packed (no padding), from `block`. */
  load(block: Float32Array, rows?: number): void;
  /** Writes one row (grows capacity by doubling). */
  set(row: number, vector: ArrayLike<number>): void;
  /** Retires a row: zeros, and for euclidean a score of −∞, so a scan rarely asks about it. */
  clear(row: number): void;
  /** What is subtracted from q · row to give the row's score: ‖row‖²/2 for euclidean, else 0. */
  bias(row: number): number;
  /**
   * A view of row `row`'s `dimension` floats in the kernel's own storage (no copy), for
   * reading single vectors. Valid until the next `set` or `load` that grows the kernel (a
   * WebAssembly memory grows by replacing its buffer): use it at once, do not keep it.
   */
  row(row: number): Float32Array;
  /** The n best rows of [0, size) for the query. */
  scan(query: Float32Array, n: number, accept?: (row: number) => boolean): ScanResult;
  /** Adds rows [0, size) to an existing selection (several scans, one result). */
  scanInto(query: Float32Array, top: TopN, accept?: (row: number) => boolean): void;
  /**
   * Adds the consecutive rows [first, first + count) to a selection. With `rowLabels`, row r
   * enters (and is offered to `accept`) as label rowLabels[r]: for a kernel whose rows are
   * grouped differently from the store, e.g. an ivf kernel holding each list's rows
   * contiguously, so a list is scanned at streaming speed instead of gathered.
   */
  scanRangeInto(
    query: Float32Array,
    first: number,
    count: number,
    top: TopN,
    accept?: (label: number) => boolean,
    rowLabels?: ArrayLike<number>,
  ): void;
  /** The n best of the given rows (a filter's matching rows, an ivf list). */
  scanRows(query: Float32Array, rows: ArrayLike<number>, n: number, accept?: (row: number) => boolean): ScanResult;
  /** Adds the given rows to an existing selection (e.g. the nprobe lists of an ivf query). */
  scanRowsInto(query: Float32Array, rows: ArrayLike<number>, top: TopN, accept?: (row: number) => boolean): void;
}

/** Creates a kernel for vectors of `dimension` floats with room for `capacity` rows (it grows). */
export function createScanKernel(dimension: number, capacity = 1024, options: ScanKernelOptions = {}): ScanKernel {
  if (!Number.isInteger(dimension) || dimension < 1)
    throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
  const useSimd = options.simd ?? true;
  const metric = options.metric ?? 'cosine';
  return useSimd && simdSupported()
    ? new WasmScanKernel(dimension, capacity, metric)
    : new JsScanKernel(dimension, capacity, metric);
}

const align64 = (n: number): number => Math.ceil(n / 64) * 64;

/**
 * Shared layout and selection; subclasses provide the storage and the scoring of a chunk.
 * Layout (bytes): [query, stride floats | row indexes, CHUNK i32 | scores, CHUNK f32 | rows].
 */
abstract class BaseScanKernel implements ScanKernel {
  readonly stride: number;
  abstract readonly simd: boolean;
  size = 0;
  capacity: number;
  protected readonly qOff = 0;
  protected readonly idxOff: number;
  protected readonly outOff: number;
  protected readonly rowsOff: number;
  protected f32!: Float32Array;
  protected i32!: Int32Array;
  /** Euclidean only: ‖row‖²/2 per row (+∞ for a cleared row). */
  private halfNorms: Float64Array | undefined;

  constructor(
    readonly dimension: number,
    capacity: number,
    readonly metric: Metric,
  ) {
    this.stride = Math.ceil(dimension / 4) * 4;
    this.capacity = Math.max(1, Math.floor(capacity));
    if (metric === 'euclidean') this.halfNorms = new Float64Array(this.capacity);
    this.idxOff = align64(this.stride * 4);
    this.outOff = this.idxOff + CHUNK * 4;
    this.rowsOff = this.outOff + CHUNK * 4;
  }

  get bytes(): number {
    return this.capacity * this.stride * 4;
  }

  protected bytesFor(capacity: number): number {
    return this.rowsOff + capacity * this.stride * 4;
  }

  /** Makes the storage at least `bytes` long, keeping its contents; refreshes the views. */
  protected abstract resize(bytes: number): void;
  /** Scores `count` consecutive rows from `first` into the scores scratch. */
  protected abstract scoreRange(first: number, count: number): void;
  /** Scores the `count` rows listed in the index scratch into the scores scratch. */
  protected abstract scoreListed(count: number): void;

  private ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    let cap = this.capacity;
    while (cap < rows) cap *= 2;
    this.resize(this.bytesFor(cap));
    if (this.halfNorms !== undefined) {
      const grown = new Float64Array(cap);
      grown.set(this.halfNorms);
      this.halfNorms = grown;
    }
    this.capacity = cap;
  }

  /** Recomputes ‖row‖²/2 from the stored (float32) values. */
  private measure(row: number): void {
    const norms = this.halfNorms;
    if (norms === undefined) return;
    const f = this.f32;
    const start = (this.rowsOff >> 2) + row * this.stride;
    let s = 0;
    for (let j = 0; j < this.dimension; j++) s += f[start + j] * f[start + j];
    norms[row] = s / 2;
  }

  bias(row: number): number {
    return this.halfNorms === undefined ? 0 : this.halfNorms[row];
  }

  load(block: Float32Array, rows = Math.floor(block.length / this.dimension)): void {
    if (rows * this.dimension > block.length) throw new RangeError(`block holds fewer than ${rows} rows`);
    this.ensureCapacity(rows);
    const { dimension: dim, stride } = this;
    const base = this.rowsOff >> 2;
    if (dim === stride) this.f32.set(block.subarray(0, rows * dim), base);
    else for (let r = 0; r < rows; r++) this.f32.set(block.subarray(r * dim, (r + 1) * dim), base + r * stride);
    // Rows beyond the new size are cleared so a shrinking load leaves no stale data.
    if (this.size > rows) this.f32.fill(0, base + rows * stride, base + this.size * stride);
    if (this.halfNorms !== undefined) {
      for (let r = 0; r < rows; r++) this.measure(r);
      this.halfNorms.fill(0, rows);
    }
    this.size = rows;
  }

  set(row: number, vector: ArrayLike<number>): void {
    if (vector.length !== this.dimension)
      throw new RangeError(`vector has ${vector.length} dimensions, expected ${this.dimension}`);
    this.ensureCapacity(row + 1);
    this.f32.set(vector, (this.rowsOff >> 2) + row * this.stride);
    this.measure(row);
    if (row >= this.size) this.size = row + 1;
  }

  clear(row: number): void {
    this.ensureCapacity(row + 1);
    const start = (this.rowsOff >> 2) + row * this.stride;
    this.f32.fill(0, start, start + this.dimension);
    if (this.halfNorms !== undefined) this.halfNorms[row] = Infinity;
    if (row >= this.size) this.size = row + 1;
  }

  row(row: number): Float32Array {
    if (!(row >= 0 && row < this.size)) throw new RangeError(`row ${row} is outside [0, ${this.size})`);
    const start = (this.rowsOff >> 2) + row * this.stride;
    return this.f32.subarray(start, start + this.dimension);
  }

  private setQuery(query: Float32Array): void {
    if (query.length !== this.dimension) throw new RangeError(`query has ${query.length} dimensions, expected ${this.dimension}`);
    this.f32.set(query, this.qOff >> 2); // the padding after it stays zero
  }

  scan(query: Float32Array, n: number, accept?: (row: number) => boolean): ScanResult {
    const top = new TopN(Math.min(n, this.size));
    this.scanInto(query, top, accept);
    return top.result();
  }

  scanInto(query: Float32Array, top: TopN, accept?: (row: number) => boolean): void {
    this.scanRangeInto(query, 0, this.size, top, accept);
  }

  scanRangeInto(
    query: Float32Array,
    first: number,
    count: number,
    top: TopN,
    accept?: (label: number) => boolean,
    rowLabels?: ArrayLike<number>,
  ): void {
    if (!(first >= 0 && count >= 0 && first + count <= this.size)) {
      throw new RangeError(`rows [${first}, ${first + count}) are outside [0, ${this.size})`);
    }
    this.setQuery(query);
    const out = this.outOff >> 2;
    const end = first + count;
    const norms = this.halfNorms;
    for (let start = first; start < end; start += CHUNK) {
      const n = Math.min(CHUNK, end - start);
      this.scoreRange(start, n);
      const scores = this.f32;
      let threshold = top.threshold;
      for (let i = 0; i < n; i++) {
        const s = norms === undefined ? scores[out + i] : scores[out + i] - norms[start + i];
        // Below the n-th best it cannot enter; a tie is settled by push() (smaller label wins).
        if (s < threshold) continue;
        const label = rowLabels === undefined ? start + i : rowLabels[start + i];
        if (accept !== undefined && !accept(label)) continue;
        top.push(label, s);
        threshold = top.threshold;
      }
    }
  }

  scanRows(query: Float32Array, rows: ArrayLike<number>, n: number, accept?: (row: number) => boolean): ScanResult {
    const top = new TopN(Math.min(n, rows.length));
    this.scanRowsInto(query, rows, top, accept);
    return top.result();
  }

  scanRowsInto(query: Float32Array, rows: ArrayLike<number>, top: TopN, accept?: (row: number) => boolean): void {
    this.setQuery(query);
    const idx = this.idxOff >> 2;
    const out = this.outOff >> 2;
    const size = this.size;
    const norms = this.halfNorms;
    for (let first = 0; first < rows.length; first += CHUNK) {
      const count = Math.min(CHUNK, rows.length - first);
      const list = this.i32;
      for (let i = 0; i < count; i++) {
        const row = rows[first + i];
        if (!(row >= 0 && row < size)) throw new RangeError(`row ${row} is outside [0, ${size})`);
        list[idx + i] = row;
      }
      this.scoreListed(count);
      const scores = this.f32;
      let threshold = top.threshold;
      for (let i = 0; i < count; i++) {
        const s = norms === undefined ? scores[out + i] : scores[out + i] - norms[list[idx + i]];
        if (s < threshold) continue;
        const row = list[idx + i];
        if (accept !== undefined && !accept(row)) continue;
        top.push(row, s);
        threshold = top.threshold;
      }
    }
  }
}

/** The WebAssembly SIMD kernel over its own linear memory. */
class WasmScanKernel extends BaseScanKernel {
  readonly simd = true;
  private readonly memory: WasmMemory;
  private readonly kernel: ScanModuleExports;

  constructor(dimension: number, capacity: number, metric: Metric) {
    super(dimension, capacity, metric);
    this.memory = createWasmMemory(this.bytesFor(this.capacity));
    this.kernel = instantiateScanModule(this.memory);
    this.refresh();
  }

  private refresh(): void {
    this.f32 = new Float32Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
  }

  protected resize(bytes: number): void {
    const pages = Math.ceil(bytes / WASM_PAGE) - this.memory.buffer.byteLength / WASM_PAGE;
    if (pages > 0) this.memory.grow(pages); // detaches the old buffer
    this.refresh();
  }

  protected scoreRange(first: number, count: number): void {
    this.kernel.scan(this.qOff, this.rowsOff + first * this.stride * 4, this.stride, count, this.outOff);
  }

  protected scoreListed(count: number): void {
    this.kernel.scanRows(this.qOff, this.rowsOff, this.stride, this.idxOff, count, this.outOff);
  }
}

/** The JavaScript fallback: the same layout in an ArrayBuffer, a 4-way unrolled loop. */
class JsScanKernel extends BaseScanKernel {
  readonly simd = false;

  constructor(dimension: number, capacity: number, metric: Metric) {
    super(dimension, capacity, metric);
    this.resize(this.bytesFor(this.capacity));
  }

  protected resize(bytes: number): void {
    const f32 = new Float32Array(bytes >> 2);
    if (this.f32 !== undefined) f32.set(this.f32);
    this.f32 = f32;
    this.i32 = new Int32Array(f32.buffer);
  }

  private dot(off: number): number {
    const f = this.f32;
    const q = this.qOff >> 2;
    const stride = this.stride;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < stride; j += 4) {
      s0 += f[off + j] * f[q + j];
      s1 += f[off + j + 1] * f[q + j + 1];
      s2 += f[off + j + 2] * f[q + j + 2];
      s3 += f[off + j + 3] * f[q + j + 3];
    }
    return s0 + s1 + s2 + s3;
  }

  protected scoreRange(first: number, count: number): void {
    const out = this.outOff >> 2;
    let off = (this.rowsOff >> 2) + first * this.stride;
    for (let i = 0; i < count; i++, off += this.stride) this.f32[out + i] = this.dot(off);
  }

  protected scoreListed(count: number): void {
    const out = this.outOff >> 2;
    const idx = this.idxOff >> 2;
    const base = this.rowsOff >> 2;
    for (let i = 0; i < count; i++) this.f32[out + i] = this.dot(base + this.i32[idx + i] * this.stride);
  }
}
