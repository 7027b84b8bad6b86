import type { Hit } from './types';

/**
 * Keeps the k best (score, label) pairs seen so far in a bounded binary min-heap: O(log k)
 * per candidate that beats the current worst, no sort of all candidates. Ties are broken
 * by the smaller label, so results are deterministic and equal a brute-force reference.
 */
export class TopK {
  private readonly labels: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    this.labels = new Int32Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  get length(): number {
    return this.size;
  }

  get full(): boolean {
    return this.size >= this.k;
  }

  /** Score a candidate must beat to enter (−∞ while not full). */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }

  /** a is worse than b: lower score, or the same score and a larger label. */
  private worse(i: number, j: number): boolean {
    const si = this.scores[i];
    const sj = this.scores[j];
    return si < sj || (si === sj && this.labels[i] > this.labels[j]);
  }

  push(label: number, score: number): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      this.labels[i] = label;
      this.scores[i] = score;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    const worstScore = this.scores[0];
    if (score < worstScore || (score === worstScore && label > this.labels[0])) return;
    this.labels[0] = label;
    this.scores[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.worse(l, m)) m = l;
      if (r < this.size && this.worse(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    const l = this.labels[i];
    this.labels[i] = this.labels[j];
    this.labels[j] = l;
    const s = this.scores[i];
    this.scores[i] = this.scores[j];
    this.scores[j] = s;
  }

  /** Best first. */
  results(): Hit[] {
    const out: Hit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ label: this.labels[i], score: this.scores[i] });
    return out.sort(compareHits);
  }
}

/** Best first: higher score, then smaller label. */
export function compareHits(a: Hit, b: Hit): number {
  return b.score - a.score || a.label - b.label;
}
