/**
 * One emitting process of the paced benchmark (bench/webhooks/throughput.ts): a ROLE=api
 * service that commits events through the real outbox (`WebhookEmitter.emit`, one Prisma
 * transaction per event) at a fixed rate, spread round-robin over the owners it is given,
 * and reports each event's commit time (ms since the epoch, sub-millisecond) to its parent.
 * Several of these pace together when one process cannot commit the whole rate.
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig, newId, PrismaService, runTransaction } from '@app/platform';
import { Pool } from 'pg';
import { WebhookOutboxRepository } from '../../libs/webhooks/src/webhook-outbox.repository';
import { WebhookEmitter } from '@app/webhooks';
import { BENCH_EVENT, BENCH_OWNER_TYPE, benchService } from './bench-service';

export interface EmitOrder {
  readonly rate: number;
  readonly seconds: number;
  readonly owners: readonly string[];
  /** Absolute start (ms since the epoch), shared by all emitters so their schedules interleave. */
  readonly startAt: number;
  /** This emitter's offset in the shared schedule (0..emitters-1) and the number of emitters. */
  readonly index: number;
  readonly of: number;
  /** Events committed together in one transaction (1: one transaction per event). */
  readonly perTx: number;
  /**
   * How a transaction is run: `prisma` = an interactive Prisma transaction through
   * WebhookEmitter.emit (what a service does); `pg` = BEGIN / the outbox repository's own
   * INSERT … pg_notify statement / COMMIT on a plain `pg` connection: the same rows and
   * notification for a fraction of the load generator's CPU.
   */
  readonly driver: 'prisma' | 'pg';
}

export type EmitterMessage =
  | { readonly kind: 'ready' }
  | { readonly kind: 'commits'; readonly commits: ReadonlyArray<readonly [string, number]> }
  | { readonly kind: 'done'; readonly behindMs: number; readonly failed: number };

const now = (): number => performance.timeOrigin + performance.now();
const send = (m: EmitterMessage): void => {
  process.send?.(m);
};

async function main(): Promise<void> {
  const config = loadConfig(benchService.configClass, { ...process.env, ROLE: 'api' });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const app = await createServiceApp(
    benchService,
    config,
    createRootLogger({ service: 'bench-emitter', level: 'error', format: 'json' }, quiet),
  );
  const prisma = app.get(PrismaService);
  const emitter = app.get(WebhookEmitter);
  const outbox = app.get(WebhookOutboxRepository, { strict: false });
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 16 });
  /** BEGIN, the outbox's INSERT … pg_notify for each event (its tagged SQL run as a parameterised query), COMMIT. */
  const pgTransaction = async (events: ReadonlyArray<{ ownerId: string; n: number }>): Promise<string[]> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const ids: string[] = [];
      for (const e of events) {
        const id = newId('evt');
        const row = outbox.eventRow(
          id,
          { ownerType: BENCH_OWNER_TYPE, ownerId: e.ownerId, event: BENCH_EVENT, data: { n: e.n, pad: 'x'.repeat(200) } },
          new Date(),
          undefined,
        );
        await client.query(row.text, row.values);
        ids.push(id);
      }
      await client.query('COMMIT');
      return ids;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  process.on('message', (order: EmitOrder) => {
    void (async () => {
      const total = Math.round(order.rate * order.seconds);
      let buffer: Array<readonly [string, number]> = [];
      const flush = setInterval(() => {
        if (buffer.length > 0) send({ kind: 'commits', commits: buffer });
        buffer = [];
      }, 200);
      const pending: Array<Promise<void>> = [];
      let behindMs = 0;
      let failed = 0;
      const txs = Math.ceil(total / order.perTx);
      const txRate = order.rate / order.perTx;
      for (let i = order.index; i < txs; i += order.of) {
        const due = order.startAt + (i * 1000) / txRate;
        const wait = due - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else behindMs = Math.max(behindMs, -wait);
        const first = i * order.perTx;
        const count = Math.min(order.perTx, total - first);
        const events = Array.from({ length: count }, (_, k) => ({
          ownerId: order.owners[(first + k) % order.owners.length] ?? 'p0',
          n: first + k,
        }));
        const committed =
          order.driver === 'pg'
            ? pgTransaction(events)
            : runTransaction(
                prisma,
                (_tx, closing) => {
                  const ids: string[] = [];
                  for (const e of events) {
                    ids.push(
                      emitter.emit(
                        closing,
                        {
                          ownerType: BENCH_OWNER_TYPE,
                          ownerId: e.ownerId,
                          event: BENCH_EVENT,
                          data: { n: e.n, pad: 'x'.repeat(200) },
                        },
                        undefined,
                      ),
                    );
                  }
                  return Promise.resolve(ids);
                },
                { maxWaitMs: 30_000 },
              );
        pending.push(
          committed.then(
            (ids) => {
              const at = now();
              for (const id of ids) buffer.push([id, at]);
            },
            () => {
              failed += count;
            },
          ),
        );
      }
      await Promise.all(pending);
      clearInterval(flush);
      if (buffer.length > 0) send({ kind: 'commits', commits: buffer });
      send({ kind: 'done', behindMs, failed });
    })();
  });
  process.on('disconnect', () => {
    Promise.all([pool.end(), app.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  send({ kind: 'ready' });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench emitter failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
