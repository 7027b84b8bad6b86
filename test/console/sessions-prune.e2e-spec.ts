/**
 * Console housekeeping, with the real Redis and PostgreSQL: each service schedules a daily
 * BullMQ job (ConsoleSessionsPruneJob) that deletes sign-in links expired and sessions idle
 * or revoked more than a day ago, and nothing else. Rows are aged by SQL (the job reads the
 * clock; nothing here waits a day), then the job runs through the queue and its worker.
 */
import { CONSOLE_SESSIONS_PRUNE_EVERY_MS, CONSOLE_SESSIONS_PRUNE_QUEUE } from '@app/auth';
import { QueueRegistry } from '@app/platform';
import { offersService } from '../../apps/offers-api/src/service';
import type { OffersConfig } from '../../apps/offers-api/src/config';
import { startTestApp, type TestApp } from '../support/app';
import { consoleLink, consoleSession, newConsoleTenant } from '../support/console';
import { queryAt } from '../support/database';
import { waitFor } from '../support/wait';

const HOUR = 3_600_000;

describe('console sessions housekeeping: the daily prune job', () => {
  let t: TestApp<OffersConfig>;

  beforeAll(async () => {
    t = await startTestApp(offersService);
  });
  afterAll(() => t.close());

  const sql = <T extends object = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    queryAt<T>(t.db.url, text, params);
  const ago = (ms: number): Date => new Date(Date.now() - ms);

  it('is scheduled once a day in Redis', async () => {
    const queue = t.app.get(QueueRegistry).queue(CONSOLE_SESSIONS_PRUNE_QUEUE);
    const scheduler = await waitFor(
      'the prune job scheduler',
      async () => (await queue.raw.getJobScheduler('prune')) ?? undefined,
    );
    expect(scheduler).toMatchObject({ name: 'prune', every: CONSOLE_SESSIONS_PRUNE_EVERY_MS });
    expect(CONSOLE_SESSIONS_PRUNE_EVERY_MS).toBe(24 * HOUR);
  });

  it('deletes links expired and sessions idle or revoked more than a day ago; keeps the rest', async () => {
    // one tenant per row to keep, or to lose, so rows are told apart by tenant_id
    const tenant = async (name: string): Promise<string> => newConsoleTenant(t.app, 'offers', name);
    const [live, idle, revokedOld, revokedRecent, idleRecent] = [
      await tenant('Live session'),
      await tenant('Idle two days'),
      await tenant('Revoked two days ago'),
      await tenant('Revoked an hour ago'),
      await tenant('Idle thirteen hours'),
    ];
    for (const id of [live, idle, revokedOld, revokedRecent, idleRecent]) await consoleSession(t.app, 'offers', id);
    await sql(`UPDATE console_sessions SET last_seen_at = $2 WHERE tenant_id = $1`, [idle, ago(48 * HOUR)]);
    await sql(`UPDATE console_sessions SET last_seen_at = $2 WHERE tenant_id = $1`, [idleRecent, ago(13 * HOUR)]);
    await sql(`UPDATE console_sessions SET revoked_at = $2 WHERE tenant_id = $1`, [revokedOld, ago(48 * HOUR)]);
    await sql(`UPDATE console_sessions SET revoked_at = $2 WHERE tenant_id = $1`, [revokedRecent, ago(HOUR)]);

    const [linkOld, linkRecent, linkUnused] = [
      await tenant('Link expired two days ago'),
      await tenant('Link expired an hour ago'),
      await tenant('Link still good'),
    ];
    for (const id of [linkOld, linkRecent, linkUnused]) await consoleLink(t.app, 'offers', id);
    await sql(`UPDATE console_links SET expires_at = $2 WHERE tenant_id = $1`, [linkOld, ago(48 * HOUR)]);
    await sql(`UPDATE console_links SET expires_at = $2 WHERE tenant_id = $1`, [linkRecent, ago(HOUR)]);

    // the job, run now through BullMQ and the service's own worker (its schedule says daily)
    const queue = t.app.get(QueueRegistry).queue(CONSOLE_SESSIONS_PRUNE_QUEUE);
    await queue.add('prune', {});
    await waitFor('the prune job to delete the old rows', async () => {
      const left = await sql<{ n: string }>(
        `SELECT (SELECT count(*) FROM console_sessions WHERE tenant_id = ANY($1)) + (SELECT count(*) FROM console_links WHERE tenant_id = $2) AS n`,
        [[idle, revokedOld], linkOld],
      );
      return left[0]?.n === '0';
    });

    const sessions = await sql<{ tenant_id: string }>(`SELECT tenant_id FROM console_sessions WHERE tenant_id = ANY($1)`, [
      [live, idle, revokedOld, revokedRecent, idleRecent],
    ]);
    expect(sessions.map((r) => r.tenant_id).sort()).toEqual([live, revokedRecent, idleRecent].sort());
    // every session's link was used (kept until it expires a day ago); the aged ones are gone
    const links = await sql<{ tenant_id: string }>(`SELECT tenant_id FROM console_links WHERE tenant_id = ANY($1)`, [
      [linkOld, linkRecent, linkUnused, live],
    ]);
    expect(links.map((r) => r.tenant_id).sort()).toEqual([linkRecent, linkUnused, live].sort());
    const logged = t.logs.filter((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('pruned '));
    expect(logged.map((l) => l['msg'])).toContainEqual(
      expect.stringMatching(/^pruned \d+ console sign-in links and \d+ console sessions$/),
    );
  });
});
