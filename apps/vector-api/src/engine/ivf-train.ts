/** What the ivf trainer produces for n rows. */
export interface IvfModelData {
  /** nlist × dim: L2-normalised for cosine, plain means for dot and euclidean. */
  centroids: Float32Array;
  nlist: number;
  /** Index of the nearest centroid of each input row. */
  assign: Int32Array;
  /** Smallest nprobe whose estimated recall@10 reaches the target. */
  nprobe: number;
  /** Estimated recall@10 at that nprobe. */
  recall: number;
}

/** workerData of ivf-train.worker.ts: trainIvfModel's arguments (`data` is transferred). */
export interface IvfTrainJob {
  readonly data: Float32Array;
  readonly n: number;
  readonly dim: number;
  readonly nlist: number;
  readonly seed: number;
  readonly sampleSize: number;
  readonly iterations: number;
  readonly targetRecall: number;
  readonly metric: 'cosine' | 'dot' | 'euclidean';
}

/** ivf-train.worker.ts → main thread. */
export type IvfTrainReply =
  { readonly t: 'done'; readonly model: IvfModelData } | { readonly t: 'failed'; readonly error: string };

/**
 * Trains the ivf model on n rows (normalised for cosine, raw for dot and euclidean):
 * k-means (k-means++ seeding, Lloyd iterations) on a random sample, spherical for cosine
 * (by cosine, centroids re-normalised) and plain L2 k-means for dot and euclidean (seeding
 * by squared L2, centroids the means); assignment of every row to its nearest centroid
 * (cosine, or L2); and calibration of nprobe: for sample queries (rows of the set, each
 * excluded from its own answer) the exact top 10 by the metric is computed, the lists are
 * ranked as a query probes them (q · c for cosine and dot, nearest by L2 for euclidean),
 * and nprobe is the smallest number of probed lists that contains `targetRecall` of those
 * neighbours.
 *
 * Small trainings run in-thread; large ones in ivf-train.worker.ts (see IvfIndex.train),
 * so they never block the event loop.
 */
export function trainIvfModel(
  data: Float32Array,
  n: number,
  dim: number,
  nlist: number,
  seed: number,
  sampleSize: number,
  iterations: number,
  targetRecall: number,
  metric: 'cosine' | 'dot' | 'euclidean' = 'cosine',
): IvfModelData {
  const spherical = metric === 'cosine';
  let st = seed >>> 0;
  const rand = (): number => {
    st = (st + 0x6d2b79f5) | 0;
    let t = Math.imul(st ^ (st >>> 15), 1 | st);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const dot = (a: Float32Array, ao: number, b: Float32Array, bo: number): number => {
    let s0 = 0;
    let s1 = 0;
    let j = 0;
    for (; j + 1 < dim; j += 2) {
      s0 += a[ao + j] * b[bo + j];
      s1 += a[ao + j + 1] * b[bo + j + 1];
    }
    if (j < dim) s0 += a[ao + j] * b[bo + j];
    return s0 + s1;
  };
  const l2 = (a: Float32Array, ao: number, b: Float32Array, bo: number): number => {
    let s = 0;
    for (let j = 0; j < dim; j++) {
      const d = a[ao + j] - b[bo + j];
      s += d * d;
    }
    return s;
  };
  const halfNormSq = (a: Float32Array, ao: number): number => dot(a, ao, a, ao) / 2;
  // ‖c‖²/2 per centroid (L2 k-means): x · c − ‖c‖²/2 is largest for the nearest centroid.
  let cHalf = new Float64Array(0);
  const measure = (cents: Float32Array, k: number): void => {
    cHalf = new Float64Array(k);
    if (!spherical) for (let c = 0; c < k; c++) cHalf[c] = halfNormSq(cents, c * dim);
  };
  const nearest = (src: Float32Array, off: number, cents: Float32Array, k: number): number => {
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < k; c++) {
      const s = dot(src, off, cents, c * dim) - cHalf[c];
      if (s > bestScore) {
        bestScore = s;
        best = c;
      }
    }
    return best;
  };

  // Random sample (partial Fisher–Yates over row indexes).
  const m = Math.min(n, sampleSize);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = 0; i < m; i++) {
    const j = i + Math.floor(rand() * (n - i));
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  const sample = new Float32Array(m * dim);
  for (let i = 0; i < m; i++) sample.set(data.subarray(order[i] * dim, (order[i] + 1) * dim), i * dim);

  // k-means++ seeding (distance for unit vectors: 1 − cos; otherwise squared L2).
  const dist = (a: Float32Array, ao: number, b: Float32Array, bo: number): number =>
    spherical ? Math.max(0, 1 - dot(a, ao, b, bo)) : l2(a, ao, b, bo);
  const k = Math.max(1, Math.min(nlist, m));
  const centroids = new Float32Array(k * dim);
  const first = Math.floor(rand() * m);
  centroids.set(sample.subarray(first * dim, (first + 1) * dim), 0);
  const d2 = new Float64Array(m);
  for (let i = 0; i < m; i++) d2[i] = dist(sample, i * dim, centroids, 0);
  for (let c = 1; c < k; c++) {
    let total = 0;
    for (let i = 0; i < m; i++) total += d2[i];
    let pick: number;
    if (total > 0) {
      let r = rand() * total;
      for (pick = 0; pick < m - 1; pick++) {
        r -= d2[pick];
        if (r <= 0) break;
      }
    } else {
      pick = Math.floor(rand() * m);
    }
    centroids.set(sample.subarray(pick * dim, (pick + 1) * dim), c * dim);
    for (let i = 0; i < m; i++) {
      const d = dist(sample, i * dim, centroids, c * dim);
      if (d < d2[i]) d2[i] = d;
    }
  }

  // Lloyd iterations on the sample; centroids re-normalised (spherical k-means) or the means.
  const sampleAssign = new Int32Array(m);
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  for (let it = 0; it < iterations; it++) {
    measure(centroids, k);
    let changed = 0;
    for (let i = 0; i < m; i++) {
      const c = nearest(sample, i * dim, centroids, k);
      if (c !== sampleAssign[i] || it === 0) changed++;
      sampleAssign[i] = c;
    }
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < m; i++) {
      const c = sampleAssign[i];
      counts[c] = counts[c] + 1;
      for (let j = 0; j < dim; j++) sums[c * dim + j] = sums[c * dim + j] + sample[i * dim + j];
    }
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) {
        const p = Math.floor(rand() * m);
        centroids.set(sample.subarray(p * dim, (p + 1) * dim), c * dim);
        continue;
      }
      let inv = 1 / counts[c];
      if (spherical) {
        let norm = 0;
        for (let j = 0; j < dim; j++) norm += sums[c * dim + j] ** 2;
        inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      }
      for (let j = 0; j < dim; j++) centroids[c * dim + j] = sums[c * dim + j] * inv;
    }
    if (it > 0 && changed === 0) break;
  }

  // Every row to its nearest centroid.
  measure(centroids, k);
  const assign = new Int32Array(n);
  for (let i = 0; i < n; i++) assign[i] = nearest(data, i * dim, centroids, k);

  // nprobe calibration.
  const queries = Math.min(64, n - 1);
  const rankHits = new Float64Array(k + 1);
  let totalNeighbours = 0;
  const K = 10;
  const cScores = new Float64Array(k);
  const cRank = new Int32Array(k);
  const cOrder: number[] = [];
  for (let c = 0; c < k; c++) cOrder.push(c);
  // Similarity as the engine ranks (q · x, less ‖x‖²/2 for euclidean), and the probe order.
  const rowHalf = new Float64Array(metric === 'euclidean' ? n : 0);
  for (let i = 0; i < rowHalf.length; i++) rowHalf[i] = halfNormSq(data, i * dim);
  const probeHalf = metric === 'euclidean' ? cHalf : new Float64Array(k);
  for (let qi = 0; qi < queries; qi++) {
    const q = Math.floor(rand() * n);
    const qOff = q * dim;
    // exact top K among other rows (simple insertion into a small sorted buffer)
    const bestL: number[] = [];
    const bestS: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i === q) continue;
      const s = dot(data, i * dim, data, qOff) - (rowHalf.length > 0 ? rowHalf[i] : 0);
      if (bestS.length < K || s > bestS[bestS.length - 1]) {
        let pos = bestS.length;
        while (pos > 0 && bestS[pos - 1] < s) pos--;
        bestS.splice(pos, 0, s);
        bestL.splice(pos, 0, i);
        if (bestS.length > K) {
          bestS.pop();
          bestL.pop();
        }
      }
    }
    for (let c = 0; c < k; c++) cScores[c] = dot(data, qOff, centroids, c * dim) - probeHalf[c];
    cOrder.sort((a, b) => cScores[b] - cScores[a]);
    for (let r = 0; r < k; r++) cRank[cOrder[r]] = r;
    for (const l of bestL) {
      rankHits[cRank[assign[l]]] = rankHits[cRank[assign[l]]] + 1;
      totalNeighbours++;
    }
  }
  let nprobe = k;
  let recall = 1;
  if (totalNeighbours > 0) {
    let covered = 0;
    for (let p = 1; p <= k; p++) {
      covered += rankHits[p - 1];
      if (covered / totalNeighbours >= targetRecall) {
        nprobe = p;
        recall = covered / totalNeighbours;
        break;
      }
    }
  }
  return { centroids, nlist: k, assign, nprobe, recall };
}
