/** Entry of the crash test's child process: a ROLE=worker webhooks-probe (see ts-child.ts). */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig } from '@app/platform';
import { webhooksProbe } from './webhooks-probe';

async function main(): Promise<void> {
  const definition = webhooksProbe(JSON.parse(process.env.WEBHOOK_TEST_ENV ?? '{}') as Record<string, string>);
  const config = loadConfig(definition.configClass, { ...process.env, ROLE: 'worker' });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  await createServiceApp(definition, config, createRootLogger({ service: 'worker-child', level: 'warn', format: 'json' }, quiet));
  process.send?.('ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`worker child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
