/**
 * The ceiling of the HTTP benchmark: plain Fastify (the version the services run on), no
 * Nest, no logging, one JSON route, in its own process like each service. Started by
 * run.ts as `node bench/ts-run.mjs bench/http/bare-server.ts`; reports its port over IPC
 * and exits when the parent disconnects.
 */
import Fastify from 'fastify';

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/ping', () => ({ object: 'ping', ok: true, time: new Date().toISOString() }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  process.on('disconnect', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bare-server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
