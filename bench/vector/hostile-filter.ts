/**
 * Another token's latency while a hostile filter is processed (issue 14, finding 3): the
 * real vector-api in a child process on loopback (scratch database, its own queue prefix),
 * a flat table of `rows` rows with metadata, then for each hostile request the latency of
 * another token's GET /v1/tables and of a small filtered query sent right after it, and
 * every such pair sent until the hostile answer arrives. Prints a table for
 * docs/reliability.md.
 *
 *   node bench/ts-run.mjs bench/vector/hostile-filter.ts [rows=5000] [dim=128]
 *
 * BENCH_SERVICE_ROOT=<checkout> runs that checkout's vector-api instead (the numbers
 * "before" a fix: an export of the older commit with node_modules and the generated
 * Prisma client linked in). Needs PostgreSQL and Redis (DATABASE_URL / REDIS_URL,
 * defaults postgresql://postgres@127.0.0.1:5432/postgres and redis://127.0.0.1:6379).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startScratchVectorApi } from './scratch-vector-api';
import { mulberry32 } from '../../test/support/random';

const [rowsArg = '5000', dimArg = '128'] = process.argv.slice(3);
const ROWS = Number(rowsArg);
const DIM = Number(dimArg);
const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ?? join(__dirname, '..', '..');
const ADMIN_KEY = 'dev-admin-key';

const log = (line: string): void => void process.stderr.write(`[hostile-filter] ${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly ms: number;
}

async function call(base: string, method: string, path: string, token: string, body?: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    // not JSON
  }
  return { status: res.status, ms, ...(code ? { code } : {}) };
}

const vector = (rand: () => number): number[] => Array.from({ length: DIM }, () => Math.round((rand() - 0.5) * 1e6) / 1e6);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const f0 = (x: number): string => x.toFixed(0);

async function main(): Promise<void> {
  const api = await startScratchVectorApi({
    prefix: 'bench_hostile',
    root: SERVICE_ROOT,
    env: { QUEUE_PREFIX: `bench-hostile-${randomBytes(3).toString('hex')}` },
  });
  try {
    const base = api.base;
    const newToken = async (name: string): Promise<string> => {
      const res = await fetch(`${base}/admin/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return ((await res.json()) as { token: string }).token;
    };
    const hostile = await newToken('hostile');
    const other = await newToken('other');
    const created = await call(base, 'POST', '/v1/tables', other, JSON.stringify({ name: 'big', dimension: DIM, index: 'flat' }));
    if (created.status !== 201) throw new Error(`table creation → ${created.status}`);
    const rand = mulberry32(42);
    for (let start = 0; start < ROWS; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, ROWS - start) }, (_, i) => ({
        id: `r${start + i}`,
        embedding: vector(rand),
        metadata: { k: (start + i) % 10, u: start + i, tags: ['a', (start + i) % 2 === 0 ? 'even' : 'odd'] },
      }));
      const res = await call(base, 'POST', '/v1/tables/big/insert', other, JSON.stringify({ rows }));
      if (res.status !== 201) throw new Error(`insert → ${res.status}`);
    }
    log(`vector-api on ${api.port} (${SERVICE_ROOT}), ${ROWS} rows of ${DIM} dimensions`);

    const smallQuery = JSON.stringify({ vector: vector(mulberry32(3)), n: 5, filter: { k: 3 } });
    const probeGet = (): Promise<Answer> => call(base, 'GET', '/v1/tables', other);
    const probeQuery = (): Promise<Answer> => call(base, 'POST', '/v1/tables/big/query', other, smallQuery);
    // Baseline: the other token alone.
    for (let i = 0; i < 5; i++) await Promise.all([probeGet(), probeQuery()]);
    const idleGet: number[] = [];
    const idleQuery: number[] = [];
    for (let i = 0; i < 30; i++) {
      idleGet.push((await probeGet()).ms);
      idleQuery.push((await probeQuery()).ms);
    }

    const manyKeys: Record<string, string> = {};
    for (let i = 0; i < 100_000; i++) manyKeys[`field_${i}`] = `value_${i}`;
    const broad: Record<string, unknown> = { k: { $gte: 0 }, u: { $gte: 0 }, tags: { $in: ['a'] } };
    for (let i = 0; Object.keys(broad).length < 64; i++) broad[`missing_${i}`] = { $ne: 1 };
    const q = vector(mulberry32(2));
    const scenarios: Array<[string, string, number]> = [
      ['100,000-key filter (as the probe)', JSON.stringify({ vector: q, n: 10, filter: manyKeys }), 1],
      [
        '100,000 `$in` values',
        JSON.stringify({ vector: q, n: 10, filter: { u: { $in: Array.from({ length: 100_000 }, (_, i) => i) } } }),
        1,
      ],
      ['broadest allowed filter, n = 1000', JSON.stringify({ vector: q, n: 1000, filter: broad }), 1],
      ['3 × 100,000-key filters at once', JSON.stringify({ vector: q, n: 10, filter: manyKeys }), 3],
    ];

    const lines: string[] = [];
    lines.push(
      `other token alone: GET /v1/tables median ${idleGet.length ? median(idleGet).toFixed(1) : '-'} ms, ` +
        `small query median ${median(idleQuery).toFixed(1)} ms (30 each)`,
    );
    lines.push('');
    lines.push(
      '| Hostile request | Its answer | Other token: GET sent with it | small query sent with it | probes during it (max GET / query) |',
    );
    lines.push('| --- | --- | ---: | ---: | --- |');
    for (const [name, body, copies] of scenarios) {
      const hostileStarted = Array.from({ length: copies }, () => call(base, 'POST', '/v1/tables/big/query', hostile, body));
      await sleep(5); // the hostile body is on its way and being read
      let finished = false;
      const all = Promise.all(hostileStarted).then((r) => {
        finished = true;
        return r;
      });
      const [firstGet, firstQuery] = await Promise.all([probeGet(), probeQuery()]);
      const during: Array<[Answer, Answer]> = [[firstGet, firstQuery]];
      while (!finished) during.push(await Promise.all([probeGet(), probeQuery()]));
      const answers = await all;
      const statuses = [...new Set(answers.map((a) => `${a.status}${a.code ? ` ${a.code}` : ''}`))].join(', ');
      const hostileMs = Math.max(...answers.map((a) => a.ms));
      const probesOk = during.every(([g, s]) => g.status === 200 && s.status === 200);
      lines.push(
        `| ${name} (${(body.length / 1e6).toFixed(2)} MB${copies > 1 ? ` ×${copies}` : ''}) | ${statuses} in ${f0(hostileMs)} ms | ` +
          `${f0(firstGet.ms)} ms | ${f0(firstQuery.ms)} ms | ${during.length} pairs${probesOk ? '' : ' (NOT ALL 200)'}, ` +
          `max ${f0(Math.max(...during.map(([g]) => g.ms)))} / ${f0(Math.max(...during.map(([, s]) => s.ms)))} ms |`,
      );
      await sleep(200);
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    process.stdout.write(
      `# ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, node ${process.version}, load ${load}\n` +
        `# service: ${SERVICE_ROOT}; ${ROWS} rows × ${DIM} dimensions, flat table\n${lines.join('\n')}\n`,
    );
  } finally {
    await api.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
