/**
 * The thread that owns a table's hnswlib graph. hnswlib-node calls block the thread they
 * run on, so the graph lives here and the event loop of the service only posts messages:
 * rows to add (with a copy of their vectors, which hnswlib keeps in its own block),
 * labels to delete, searches, and snapshot writes.
 *
 * `hnswWorkerMain` runs from its source text (`new Worker(source, { eval: true })`, as
 * runInWorker does): it must not reference anything outside its body, and it reaches
 * hnswlib-node through the path the service resolved (`workerData.hnswlibPath`).
 *
 * Scheduling inside the thread: searches are answered as soon as their message arrives;
 * adds are processed in slices of `sliceMs`, and a slice also ends early when the main
 * thread has raised the `waiting` counter (a search is on its way), so a query waits for
 * at most one point's insertion. While a snapshot is being written (hnswlib's async
 * writeIndex, which runs on the libuv pool), adds and deletes queue up and searches
 * continue: a graph that is only read may be saved and searched at the same time.
 */

import type * as HnswlibModule from 'hnswlib-node';
import type * as WorkerThreadsModule from 'node:worker_threads';

/** Main thread → worker. */
export type HnswWorkerRequest =
  | { readonly t: 'add'; readonly batch: number; readonly labels: Uint32Array; readonly vectors: Float32Array }
  | { readonly t: 'remove'; readonly labels: Uint32Array }
  | {
      readonly t: 'search';
      readonly id: number;
      readonly query: Float32Array;
      readonly k: number;
      readonly ef: number;
      /** byte per label, 1 = allowed (a metadata filter's matching rows). */
      readonly bitmap?: Uint8Array;
    }
  | { readonly t: 'write'; readonly id: number; readonly path: string };

/** Counts the main thread keeps in step with. */
export interface HnswWorkerCounts {
  /** Points of the graph, deleted ones included. */
  readonly points: number;
  /** Points marked deleted (their slots are reused when their label is written again). */
  readonly deleted: number;
  readonly capacity: number;
}

/** Worker → main thread. */
export type HnswWorkerReply =
  /** hnswlib-node is loaded: from now on the thread may be terminated (see HnswIndex.close). */
  | { readonly t: 'lib' }
  | ({ readonly t: 'ready' } & HnswWorkerCounts)
  | ({ readonly t: 'done'; readonly batch: number } & HnswWorkerCounts)
  | { readonly t: 'result'; readonly id: number; readonly labels?: Uint32Array; readonly error?: string }
  | ({
      readonly t: 'written';
      readonly id: number;
      /** Per label: 0 not in the graph, 1 a live point, 2 a deleted point (as written). */
      readonly inGraph?: Uint8Array;
      readonly error?: string;
    } & HnswWorkerCounts)
  | { readonly t: 'failed'; readonly error: string };

export interface HnswWorkerData {
  readonly hnswlibPath: string;
  readonly dim: number;
  /** hnswlib's space: 'cosine' (cosine tables), 'ip' (dot: distance 1 − q·x), 'l2' (euclidean: squared L2). */
  readonly space: 'cosine' | 'ip' | 'l2';
  readonly m: number;
  readonly efConstruction: number;
  readonly seed: number;
  readonly capacity: number;
  readonly sliceMs: number;
  /** Int32Array over a SharedArrayBuffer: [searches posted and not yet taken]. */
  readonly waiting: Int32Array;
  /** Load this hnswlib file instead of starting empty, with its per-label states. */
  readonly graphPath?: string;
  readonly inGraph?: Uint8Array;
}

type WorkerThreads = typeof WorkerThreadsModule;
type HnswLib = typeof HnswlibModule;

export function hnswWorkerMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- runs as a CommonJS worker script */
  const threads = require('node:worker_threads') as WorkerThreads;
  const data = threads.workerData as HnswWorkerData;
  const lib = require(data.hnswlibPath) as HnswLib;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const parentPort = threads.parentPort;
  const port = parentPort;
  if (!port) return;
  const post = (msg: HnswWorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(msg, transfer);
  post({ t: 'lib' });
  const { dim, waiting } = data;
  const GROWTH = 1.5;

  type Op = { t: 'add'; batch: number; labels: Uint32Array; vectors: Float32Array; i: number; op: number };
  const queue: Op[] = [];
  let ops = 0;
  /**
   * Deletes are applied as soon as they arrive (a search right after must not return the
   * row), ahead of queued adds: an add queued before a delete of the same label (op number
   * below the delete's) is skipped when its turn comes.
   */
  const removedAt = new Map<number, number>();
  const deferred: number[] = [];
  let paused = false;
  let scheduled = false;
  let lastEf = -1;
  let points = 0;
  let deleted = 0;
  let inGraph: Uint8Array = new Uint8Array(1024);
  const graph = new lib.HierarchicalNSW(data.space, dim);
  let capacity: number;
  if (data.graphPath !== undefined && data.inGraph !== undefined) {
    graph.readIndexSync(data.graphPath, false);
    capacity = graph.getMaxElements();
    inGraph = data.inGraph.length > 0 ? data.inGraph : inGraph;
    for (let l = 0; l < inGraph.length; l++) {
      if (inGraph[l] !== 0) points++;
      if (inGraph[l] === 2) deleted++;
    }
  } else {
    capacity = Math.max(1024, Math.ceil(data.capacity));
    graph.initIndex({
      maxElements: capacity,
      m: data.m,
      efConstruction: data.efConstruction,
      randomSeed: data.seed,
      allowReplaceDeleted: false,
    });
  }
  const counts = (): HnswWorkerCounts => ({ points, deleted, capacity });

  function room(label: number): void {
    if (label < inGraph.length) return;
    const grown = new Uint8Array(Math.max(label + 1, Math.ceil(inGraph.length * GROWTH)));
    grown.set(inGraph);
    inGraph = grown;
  }

  function addOne(label: number, vector: number[]): void {
    room(label);
    const was = inGraph[label];
    if (was === 0 && points + 1 > capacity) {
      capacity = Math.ceil(Math.max(points + 1, capacity * GROWTH));
      graph.resizeIndex(capacity);
    }
    // A label already in the graph (live, or deleted and now written again) is updated in
    // place: hnswlib unmarks it and relinks it, so its slot is reused.
    graph.addPoint(vector, label);
    if (was === 0) points++;
    if (was === 2) deleted--;
    inGraph[label] = 1;
  }

  function removeOne(label: number): void {
    if (label < inGraph.length && inGraph[label] === 1) {
      try {
        graph.markDelete(label);
      } catch {
        // already marked in a loaded file (deleted while that file was written): same end state
      }
      inGraph[label] = 2;
      deleted++;
    }
  }

  const vector: number[] = new Array<number>(dim).fill(0);
  function work(): void {
    scheduled = false;
    if (paused) return;
    const end = performance.now() + data.sliceMs;
    while (queue.length > 0 && Atomics.load(waiting, 0) === 0) {
      const op = queue[0];
      {
        const { labels, vectors } = op;
        while (op.i < labels.length) {
          const label = labels[op.i];
          const removed = removedAt.get(label);
          if (removed === undefined || removed < op.op) {
            const off = op.i * dim;
            for (let j = 0; j < dim; j++) vector[j] = vectors[off + j];
            addOne(label, vector);
          }
          op.i++;
          if (performance.now() >= end || Atomics.load(waiting, 0) > 0) break;
        }
        if (op.i < labels.length) break;
        queue.shift();
        if (queue.length === 0) removedAt.clear();
        post({ t: 'done', batch: op.batch, ...counts() });
      }
      if (performance.now() >= end) break;
    }
    if (queue.length > 0) schedule();
  }

  function schedule(): void {
    if (scheduled || paused) return;
    scheduled = true;
    setImmediate(work);
  }

  function search(msg: Extract<HnswWorkerRequest, { t: 'search' }>): void {
    Atomics.sub(waiting, 0, 1);
    const live = points - deleted;
    const k = Math.min(msg.k, live);
    if (k <= 0) {
      post({ t: 'result', id: msg.id, labels: new Uint32Array(0) });
      return;
    }
    if (msg.ef !== lastEf) {
      graph.setEf(msg.ef);
      lastEf = msg.ef;
    }
    const q = Array.from(msg.query);
    const bitmap = msg.bitmap;
    const res =
      bitmap === undefined
        ? graph.searchKnn(q, k)
        : graph.searchKnn(q, k, (label: number) => label < bitmap.length && bitmap[label] === 1);
    const labels = Uint32Array.from(res.neighbors);
    post({ t: 'result', id: msg.id, labels }, [labels.buffer]);
  }

  port.on('message', (msg: HnswWorkerRequest) => {
    try {
      switch (msg.t) {
        case 'add':
          queue.push({ ...msg, i: 0, op: ++ops });
          schedule();
          break;
        case 'remove': {
          const at = ++ops;
          for (const label of msg.labels) {
            // While the file is written the graph is not touched: the delete waits for it
            // (the main thread drops deleted rows from answers meanwhile).
            if (paused) deferred.push(label);
            else removeOne(label);
            if (queue.length > 0) removedAt.set(label, at);
          }
          break;
        }
        case 'search':
          try {
            search(msg);
          } catch (err) {
            post({ t: 'result', id: msg.id, error: String(err) });
          }
          if (queue.length > 0) schedule();
          break;
        case 'write': {
          paused = true;
          const state = inGraph.slice();
          const at = counts();
          graph
            .writeIndex(msg.path)
            .then(
              () => post({ t: 'written', id: msg.id, inGraph: state, ...at }, [state.buffer]),
              (err: unknown) => post({ t: 'written', id: msg.id, error: String(err), ...at }),
            )
            .finally(() => {
              paused = false;
              for (const label of deferred.splice(0)) removeOne(label);
              schedule();
            });
          break;
        }
      }
    } catch (err) {
      post({ t: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  });
  post({ t: 'ready', ...counts() });
}
