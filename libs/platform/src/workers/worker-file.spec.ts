import { once } from 'node:events';
import { startWorkerFile } from './worker-file';

describe('startWorkerFile', () => {
  it('starts a worker from its TypeScript source, with its relative imports and workerData', async () => {
    const worker = startWorkerFile(new URL('./fixtures/echo.worker.js', import.meta.url), { workerData: { offset: 1 } });
    try {
      worker.postMessage(20);
      const [answer] = (await once(worker, 'message')) as [number];
      expect(answer).toBe(41);
    } finally {
      await worker.terminate();
    }
  });

  it('names the file when neither the .js nor the .ts exists', () => {
    expect(() => startWorkerFile(new URL('./fixtures/missing.worker.js', import.meta.url))).toThrow(/missing\.worker\.js/);
  });
});
