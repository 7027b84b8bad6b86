import { startTracing } from '@app/platform/telemetry';

/**
 * Tracing starts first (only if OTEL_EXPORTER_OTLP_ENDPOINT is set: docs/operations.md,
 * "Tracing"), so that its instrumentations patch http, pg and ioredis before the service's
 * modules load them; the service is loaded after it.
 */
async function main(): Promise<void> {
  await startTracing('vector-api');
  await import('reflect-metadata');
  const { runService } = await import('@app/platform');
  const { vectorService } = await import('./service');
  await runService(vectorService);
}

main().catch((err: unknown) => {
  process.stderr.write(`vector-api failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
