/**
 * Results of `npm run bench:http`: the printed table and the "HTTP load (npm run bench:http)"
 * section of docs/benchmarks.md. Rewriting the section keeps its "### Profile" subsection
 * (written by hand from `--profile` runs) and leaves every other section as it is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { LoadResult } from './load';
import { ROOT } from './platform';

export const HEADING = '## HTTP load (npm run bench:http)';

export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly result: LoadResult;
  /** req/s ÷ the bare route's mean req/s. */
  readonly ratio: number;
}

export interface BenchResults {
  readonly date: string;
  readonly command: string;
  readonly totalSeconds: number;
  readonly machine: { cpu: string; cores: number; memoryGiB: number; node: string; os: string };
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly git: { commit: string; dirty: boolean };
  readonly database: string;
  readonly redis: string;
  readonly settings: { connections: number; seconds: number; warmupSeconds: number; logLevel: string };
  readonly seeded: string;
  /** a–d in order, then the bare route (its mean of the first and last runs). */
  readonly scenarios: ScenarioResult[];
  readonly bare: { first: LoadResult; last: LoadResult; meanRequestsPerSecond: number };
  /** Write routes against pgbench running the same statements (sql-baseline.ts), round by round. */
  readonly direct?: DirectResult[];
  /** Stripe's /v1 payment intent create+confirm against the /v2 payment create, in turns (issue 35). */
  readonly stripe?: StripeComparison;
  readonly failures: string[];
}

export interface DirectResult {
  readonly id: string;
  readonly title: string;
  /** Statements of one request (BEGIN/COMMIT included) and how the sequence was found. */
  readonly statements: number;
  readonly matched: string;
  readonly clients: number;
  readonly rounds: ReadonlyArray<{
    readonly http: number;
    readonly pgbench: number;
    readonly ratio: number;
    readonly load: string;
  }>;
  /** Median of the per-round ratios. */
  readonly ratio: number;
}

/** f (/v1 intent create with confirm=true) against d (/v2 payment create), measured in turns in one run. */
export interface StripeComparison {
  readonly v1: string;
  readonly v2: string;
  readonly rounds: ReadonlyArray<{
    /** req/s of each, and v1 ÷ v2 */
    readonly v1: number;
    readonly v2: number;
    readonly ratio: number;
    /** which ran first in the round */
    readonly first: 'v1' | 'v2';
    readonly load: string;
  }>;
  /** Median of the per-round ratios. */
  readonly ratio: number;
}

/** Issue 35: a /v1 intent create with confirm=true within 20 % of a /v2 payment create. */
export const STRIPE_TARGET = 0.8;

/** The /v1-against-/v2 comparison as a Markdown table (printed; docs/benchmarks.md's issue 35 section is filled from it). */
export function formatStripeComparison(r: BenchResults): string {
  const c = r.stripe;
  if (!c) return '';
  return [
    `${c.v1} ÷ ${c.v2}, in turns (${r.settings.connections} connections, ${r.settings.warmupSeconds} s warm-up + ${r.settings.seconds} s each):`,
    '',
    '| round | first | /v1 req/s | /v2 req/s | /v1 ÷ /v2 | load average |',
    '| ---: | --- | ---: | ---: | ---: | --- |',
    ...c.rounds.map((x, i) => `| ${i + 1} | ${x.first} | ${f0(x.v1)} | ${f0(x.v2)} | ${f2(x.ratio)} | ${x.load} |`),
    '',
    `Median ratio: **${f2(c.ratio)}** (target ≥ ${STRIPE_TARGET}${c.ratio >= STRIPE_TARGET ? ', met' : ', NOT met'}).`,
  ].join('\n');
}

/** Ratio target of issue 19, item 5. */
export const DIRECT_TARGET = 0.8;

const DIRECT_HEADERS = [
  'route',
  'statements/request',
  'req/s by round',
  'pgbench tps by round',
  'ratio by round',
  'ratio (median)',
];

function directRows(r: BenchResults): string[][] {
  return (r.direct ?? []).map((d) => [
    d.title,
    String(d.statements),
    d.rounds.map((x) => f0(x.http)).join(' / '),
    d.rounds.map((x) => f0(x.pgbench)).join(' / '),
    d.rounds.map((x) => f2(x.ratio)).join(' / '),
    `${f2(d.ratio)}${d.ratio >= DIRECT_TARGET ? '' : ` (< ${DIRECT_TARGET})`}`,
  ]);
}

/** The write-path table for the terminal (empty when no write route ran). */
export function formatDirectTable(r: BenchResults): string {
  if (!r.direct?.length) return '';
  const all = [DIRECT_HEADERS, ...directRows(r)];
  const widths = DIRECT_HEADERS.map((_, c) => Math.max(...all.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]): string =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  return [
    `Write routes vs the same statements run directly by pgbench (-M extended, ${r.direct[0]?.clients ?? '?'} clients = the service's pool):`,
    line(DIRECT_HEADERS),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...directRows(r).map(line),
    ...r.direct.map(
      (d) => `  ${d.title}: load average per round ${d.rounds.map((x) => x.load).join(' | ')}; sequence ${d.matched}`,
    ),
  ].join('\n');
}

const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '–');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');
const f3 = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '–');
/** Ratios to the bare route are small: two significant digits. */
const ratio = (x: number): string => (Number.isFinite(x) ? (x >= 1 ? x.toFixed(2) : x.toPrecision(2)) : '–');

function rows(r: BenchResults): string[][] {
  return r.scenarios.map((s) => [
    s.title,
    f0(s.result.requestsPerSecond),
    f2(s.result.latencyMs.p50),
    f2(s.result.latencyMs.p99),
    String(s.result.failures),
    ratio(s.ratio),
    f3(s.result.cpu.serviceMs),
    f3(s.result.cpu.postgresMs),
    `${f0(s.result.cpu.machineBusy * 100)} %`,
  ]);
}

const HEADERS = [
  'scenario',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx + errors',
  '÷ bare',
  'service CPU ms/req',
  'PostgreSQL CPU ms/req',
  'machine busy',
];

/** A plain-text table for the terminal. */
export function formatTable(r: BenchResults): string {
  const all = [HEADERS, ...rows(r)];
  const widths = HEADERS.map((_, c) => Math.max(...all.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]): string =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  return [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows(r).map(line)].join('\n');
}

export function slowest(r: BenchResults): ScenarioResult | undefined {
  return r.scenarios.filter((s) => s.id !== 'bare').sort((a, b) => a.ratio - b.ratio)[0];
}

function renderSection(r: BenchResults, profile: string | undefined): string {
  const m = r.machine;
  const worst = slowest(r);
  const drift = (r.bare.last.requestsPerSecond / r.bare.first.requestsPerSecond - 1) * 100;
  const lines = [
    HEADING,
    '',
    `Command: \`${r.command}\` (${(r.totalSeconds / 60).toFixed(1)} min in all). Date: ${r.date}. ` +
      `Commit ${r.git.commit.slice(0, 12)}${r.git.dirty ? ' plus uncommitted changes' : ''}. ` +
      `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(1)} GiB RAM, Node ${m.node}, ${m.os}. ` +
      `Load average (1/5/15 min) before: ${r.loadBefore}; after: ${r.loadAfter}.`,
    '',
    `- Platform: started as \`npm start\` starts it (\`node dist/scripts/dev-start.js\`, one process per service, after ` +
      `\`npm run build\` when dist/ is stale) with NODE_ENV=production, LOG_LEVEL=${r.settings.logLevel} (JSON lines to ` +
      `.data/bench-http/platform.log), ${r.database}, Redis at ${r.redis} with its own queue prefix, and rate limits raised ` +
      `through the services' config so that none answers 429 (the limiter still runs on every request). The database and ` +
      `the Redis keys are removed at the end.`,
    `- Data, created through the public and admin APIs only: ${r.seeded}.`,
    `- Load: autocannon in the benchmark's own process, ${r.settings.connections} connections, pipelining 1, ` +
      `${r.settings.warmupSeconds} s warm-up then ${r.settings.seconds} s measured per scenario. b and d send a distinct ` +
      `body and Idempotency-Key with every request. p50/p99 come from every response's own timing (not autocannon's 1 ms ` +
      `histogram). Any non-2xx response or socket error fails the run.`,
    `- Ceiling: the bare route (plain Fastify, no Nest, one JSON route, its own process) is measured first and last; ` +
      `"÷ bare" divides by the mean of the two (${f0(r.bare.first.requestsPerSecond)} and ` +
      `${f0(r.bare.last.requestsPerSecond)} req/s, drift ${drift >= 0 ? '+' : ''}${drift.toFixed(1)} %).`,
    `- CPU columns, from /proc: user + system time of the process serving the route, and of the PostgreSQL backends ` +
      `connected to the benchmark's database, divided by the requests completed; "machine busy" is all cores (everybody's ` +
      `work). The machine is shared, so req/s moves with other people's load: compare the ratios and the CPU per request.`,
    '',
    `| ${HEADERS.join(' | ')} |`,
    `| ${HEADERS.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows(r).map((row) => `| ${row.join(' | ')} |`),
    '',
    worst ? `Slowest of a–d relative to the bare route: **${worst.title}** (${ratio(worst.ratio)} × the bare route).` : '',
    '',
    ...directSection(r),
  ];
  return `${lines.join('\n')}${profile ? `\n${profile.trim()}\n` : ''}`;
}

function directSection(r: BenchResults): string[] {
  if (!r.direct?.length) return [];
  return [
    '### Write routes against direct SQL (issue 19, item 5)',
    '',
    `Each write route (b, d) is compared, in the same run, with PostgreSQL executing the statements one request of it ` +
      `issues, through pgbench at ${r.direct[0]?.clients ?? '?'} clients (the service's connection pool, DATABASE_POOL_SIZE). ` +
      `The statements are captured at the start of the run from the wire (bench/http/sql-baseline.ts: an extra API-only ` +
      `instance of the service behind the SQL-tracing proxy), so the baseline follows the route when its SQL changes. ` +
      `Rounds alternate (HTTP then pgbench, pgbench then HTTP, …), each with its own ${r.settings.warmupSeconds} s warm-up ` +
      `and ${r.settings.seconds} s measured; the ratio is the median of the per-round ratios. Target: ≥ ${DIRECT_TARGET}.`,
    '',
    `| ${DIRECT_HEADERS.join(' | ')} |`,
    `| ${DIRECT_HEADERS.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...directRows(r).map((row) => `| ${row.join(' | ')} |`),
    '',
    ...r.direct.map(
      (d) =>
        `- ${d.title}: load average (1 min) per round ${d.rounds.map((x) => x.load.split(' ')[0]).join(', ')}; ${d.matched}.`,
    ),
    '',
    `How the baseline is derived (docs/decisions.md 113, 114): pgbench sends each captured statement with \`-M extended\` ` +
      `(one Parse/Bind/Execute/Sync round trip, as node-postgres does), BEGIN/COMMIT where the route sends them; parameters ` +
      `that are the same in every sampled request are passed as captured, ids and keys that differ per request get a random ` +
      `value of the same prefix and type per transaction (the script is written to \`.data/bench-http/pgbench-<route>.sql\`). ` +
      `Not in the baseline: the outbox dispatch after commit (woken by the same \`pg_notify\` in both runs), Redis (the rate ` +
      `limiter), HTTP, and the load generator's own CPU, which shares the machine with the service during the HTTP run only.`,
    '',
  ];
}

/** Replaces (or appends) the section; keeps its "### Profile" subsection and every other section. */
export async function writeSection(r: BenchResults): Promise<string> {
  const path = join(ROOT, 'docs', 'benchmarks.md');
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf(`\n${HEADING}\n`);
  let profile: string | undefined;
  if (start >= 0) {
    const next = doc.indexOf('\n## ', start + HEADING.length + 2);
    const old = doc.slice(start + 1, next >= 0 ? next + 1 : undefined);
    const p = old.indexOf('\n### Profile');
    if (p >= 0) profile = old.slice(p + 1);
    doc = doc.slice(0, start + 1) + renderSection(r, profile) + (next >= 0 ? `\n${doc.slice(next + 1)}` : '');
  } else {
    doc = `${doc.trimEnd()}\n\n${renderSection(r, undefined)}`;
  }
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(doc, { ...options, filepath: path }));
  return path;
}
