/** One ROLE=worker process of the benchmark (dispatcher + delivery worker). */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig } from '@app/platform';
import { benchService } from './bench-service';

async function main(): Promise<void> {
  const config = loadConfig(benchService.configClass, { ...process.env, ROLE: 'worker' });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const app = await createServiceApp(
    benchService,
    config,
    createRootLogger({ service: 'bench-worker', level: 'error', format: 'json' }, quiet),
  );
  process.send?.('ready');
  process.on('disconnect', () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
