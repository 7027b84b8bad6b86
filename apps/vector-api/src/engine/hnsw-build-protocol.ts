/**
 * The typed protocol between HnswIndex (main thread) and hnsw-builder.worker.ts, the
 * thread that builds a table's next graph. One worker runs one job and exits, so all of
 * its native memory (the graph it built) is returned at once.
 */

/** hnswlib's space: 'cosine' (cosine tables), 'ip' (dot: distance 1 − q·x), 'l2' (euclidean: squared L2). */
export type HnswSpace = 'cosine' | 'ip' | 'l2';

/** workerData of a build: extend `base` (or start empty) with `labels`/`vectors`, write the result to `out`. */
export interface HnswBuildJob {
  readonly space: HnswSpace;
  readonly dim: number;
  readonly m: number;
  readonly efConstruction: number;
  readonly seed: number;
  /** The graph file to start from (the table's current sealed graph), and its labels still live. */
  readonly base?: { readonly path: string; readonly live: Uint32Array };
  /** Rows to add (a label already in the base is updated in place). */
  readonly labels: Uint32Array;
  /** Their vectors, `dim` floats each, in `labels` order (transferred, not copied). */
  readonly vectors: Float32Array;
  /** Where to write the finished graph (hnswlib's own format). */
  readonly out: string;
}

/** Worker → main thread. */
export type HnswBuildReply =
  | { readonly t: 'progress'; readonly added: number }
  | { readonly t: 'done'; readonly points: number; readonly deleted: number; readonly capacity: number }
  | { readonly t: 'failed'; readonly error: string };

/** Adds between two progress replies. */
export const PROGRESS_EVERY = 1000;
