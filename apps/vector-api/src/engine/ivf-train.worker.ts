/**
 * Trains an ivf model off the event loop (see IvfIndex.train): one job per worker, given
 * as workerData; the answer's typed arrays are transferred back, and the thread exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type IvfTrainJob, type IvfTrainReply, trainIvfModel } from './ivf-train.js';

const port = parentPort;
if (!port) throw new Error('ivf-train.worker runs in a worker thread');
const job = workerData as IvfTrainJob;
try {
  const model = trainIvfModel(
    job.data,
    job.n,
    job.dim,
    job.nlist,
    job.seed,
    job.sampleSize,
    job.iterations,
    job.targetRecall,
    job.metric,
  );
  port.postMessage({ t: 'done', model } satisfies IvfTrainReply, [
    model.centroids.buffer as ArrayBuffer,
    model.assign.buffer as ArrayBuffer,
  ]);
} catch (err) {
  port.postMessage({ t: 'failed', error: err instanceof Error ? err.message : String(err) } satisfies IvfTrainReply);
}
