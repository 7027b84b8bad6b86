/** Entry of the crash test's child process: a ROLE=worker webhooks-probe (see ts-child.ts). */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig } from '@app/platform';
import { webhooksProbe } from './webhooks-probe';

async function main(): Promise<void> {
  // the environment it was forked with, WEBHOOK_* included, as a service reads its own
  const config = loadConfig(webhooksProbe.configClass, { ...process.env, ROLE: 'worker' });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  await createServiceApp(
    webhooksProbe,
    config,
    createRootLogger({ service: 'worker-child', level: 'warn', format: 'json' }, quiet),
  );
  process.send?.('ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`worker child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
