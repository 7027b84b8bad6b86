/**
 * Builds a table's next sealed graph off the event loop (see HnswIndex): loads the current
 * graph file (or starts empty), marks deleted every point the main thread no longer holds
 * live in it, adds the rows of the growing segment, writes the file and exits. The main
 * thread then reads the file with hnswlib's asynchronous readIndex and swaps it in; queries
 * never wait for any of this.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HierarchicalNSW } from 'hnswlib-node';
import { type HnswBuildJob, type HnswBuildReply, PROGRESS_EVERY } from './hnsw-build-protocol.js';

async function build(job: HnswBuildJob, reply: (msg: HnswBuildReply) => void): Promise<void> {
  const { dim, labels, vectors } = job;
  const graph = new HierarchicalNSW(job.space, dim);
  let deleted = 0;
  if (job.base) {
    await graph.readIndex(job.base.path);
    let top = 0;
    for (const l of job.base.live) top = Math.max(top, l + 1);
    const live = new Uint8Array(top);
    for (const l of job.base.live) live[l] = 1;
    for (const label of graph.getIdsList()) {
      if (label < top && live[label] === 1) continue;
      try {
        graph.markDelete(label);
      } catch {
        // already deleted in the file
      }
    }
    deleted = graph.getCurrentCount() - job.base.live.length;
    const need = graph.getCurrentCount() + labels.length;
    if (need > graph.getMaxElements()) graph.resizeIndex(Math.ceil(need * 1.1) + 16);
  } else {
    graph.initIndex({
      maxElements: Math.max(16, labels.length),
      m: job.m,
      efConstruction: job.efConstruction,
      randomSeed: job.seed,
      allowReplaceDeleted: false,
    });
  }
  const point = new Array<number>(dim);
  for (let i = 0; i < labels.length; i++) {
    const off = i * dim;
    for (let j = 0; j < dim; j++) point[j] = vectors[off + j];
    graph.addPoint(point, labels[i]);
    if ((i + 1) % PROGRESS_EVERY === 0) reply({ t: 'progress', added: i + 1 });
  }
  await graph.writeIndex(job.out);
  // A label of the base written again is updated in place (unmarked), so count what is deleted now.
  const points = graph.getCurrentCount();
  reply({ t: 'done', points, deleted: Math.max(0, Math.min(deleted, points - labels.length)), capacity: graph.getMaxElements() });
}

const port = parentPort;
if (!port) throw new Error('hnsw-builder.worker runs in a worker thread');
build(workerData as HnswBuildJob, (msg) => port.postMessage(msg)).catch((err: unknown) =>
  port.postMessage({ t: 'failed', error: err instanceof Error ? err.message : String(err) } satisfies HnswBuildReply),
);
