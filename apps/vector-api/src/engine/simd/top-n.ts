/** Top-n rows of a scan, best first: `labels[i]` scored `scores[i]`. */
export interface ScanResult {
  readonly labels: Int32Array;
  readonly scores: Float32Array;
}

/**
 * The n best (score, label) pairs seen so far, in a bounded binary min-heap of typed arrays:
 * a candidate costs one comparison with `threshold` unless it enters, then O(log n); nothing
 * is sorted but the n survivors at the end. Ties go to the smaller label (as `compareHits`),
 * so results are deterministic and comparable with a brute-force reference.
 */
export class TopN {
  private readonly heapLabels: Int32Array;
  private readonly heapScores: Float64Array;
  private count = 0;
  /** A candidate scoring below this cannot enter (−∞ until n candidates were seen). */
  threshold = -Infinity;

  constructor(readonly n: number) {
    const size = Math.max(1, Math.floor(n));
    this.heapLabels = new Int32Array(size);
    this.heapScores = new Float64Array(size);
  }

  get length(): number {
    return this.count;
  }

  push(label: number, score: number): void {
    if (this.n < 1) return;
    if (this.count < this.n) {
      let i = this.count++;
      this.heapLabels[i] = label;
      this.heapScores[i] = score;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(this.heapLabels, this.heapScores, i, p)) break;
        swap(this.heapLabels, this.heapScores, i, p);
        i = p;
      }
      if (this.count === this.n) this.threshold = this.heapScores[0];
      return;
    }
    const worst = this.heapScores[0];
    if (score < worst || (score === worst && label > this.heapLabels[0])) return;
    this.heapLabels[0] = label;
    this.heapScores[0] = score;
    siftDown(this.heapLabels, this.heapScores, 0, this.count);
    this.threshold = this.heapScores[0];
  }

  /** The survivors, best first (higher score, then smaller label). Leaves the heap intact. */
  result(): ScanResult {
    const size = this.count;
    const labels = new Int32Array(size);
    const scores = new Float32Array(size);
    // Heap-sort a copy: pop the worst to the back, n·log n for the n survivors only.
    const hl = this.heapLabels.slice(0, size);
    const hs = this.heapScores.slice(0, size);
    for (let end = size - 1; end >= 0; end--) {
      labels[end] = hl[0];
      scores[end] = hs[0];
      hl[0] = hl[end];
      hs[0] = hs[end];
      siftDown(hl, hs, 0, end);
    }
    return { labels, scores };
  }
}

/** The entry at i is worse than the one at j: lower score, or the same score and a larger label. */
function worse(labels: Int32Array, scores: Float64Array, i: number, j: number): boolean {
  const si = scores[i];
  const sj = scores[j];
  return si < sj || (si === sj && labels[i] > labels[j]);
}

function swap(labels: Int32Array, scores: Float64Array, i: number, j: number): void {
  const l = labels[i];
  labels[i] = labels[j];
  labels[j] = l;
  const s = scores[i];
  scores[i] = scores[j];
  scores[j] = s;
}

/** Restores the min-heap property below i within the first `size` entries. */
function siftDown(labels: Int32Array, scores: Float64Array, i: number, size: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < size && worse(labels, scores, l, m)) m = l;
    if (r < size && worse(labels, scores, r, m)) m = r;
    if (m === i) return;
    swap(labels, scores, i, m);
    i = m;
  }
}
