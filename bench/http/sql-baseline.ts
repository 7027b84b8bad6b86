/**
 * The direct-SQL baseline of a write route: the statements one request of the route runs,
 * captured from the wire (sql-trace) with their parameters, replayed by pgbench at the same
 * concurrency. Nothing is hand-copied: when the route's SQL changes, the script follows.
 *
 * Capture: an extra API-only instance of the route's service (ROLE=api: no workers or
 * pollers) on the benchmark's database, behind the tracing proxy, answers `samples` requests
 * one after another. The statements executed between sending a request and receiving its
 * response are that request's; the shortest statement sequence seen in at least two requests
 * is the route's (anything else in a window is background work that happened to overlap).
 *
 * Script: the statements in that order, BEGIN/COMMIT where the route sends them (autocommit
 * statements stay autocommit), each on one pgbench line, run with `-M extended` (one
 * Parse/Bind/Execute/Sync round trip per statement, as node-postgres sends it). Parameters
 * equal in every sampled request are passed as they were sent (`-D` variables, so the server
 * plans them the same way). Parameters that differ between requests (ids, keys, fingerprints)
 * are replaced by a per-transaction random value of the same shape and type, so unique
 * constraints hold; the same value used twice in a request (the idempotency record's id in
 * its claim and its completion) stays one variable. Numbers, timestamps and JSON keep the
 * captured value (they are not unique keys).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';
import type { RequestSpec } from './load';
import type { Execution, SqlTrace } from './sql-trace';

export interface Baseline {
  /** The statements of one request, in order (text as sent). */
  readonly statements: ReadonlyArray<{ text: string; params: ReadonlyArray<string | null> }>;
  /** How many of the sampled requests ran exactly this sequence. */
  readonly matched: number;
  readonly samples: number;
  /** The pgbench script and its `-D name=value` variables. */
  readonly script: string;
  readonly defines: ReadonlyArray<readonly [string, string]>;
}

export interface PgbenchResult {
  readonly tps: number;
  readonly transactions: number;
  readonly failed: number;
  readonly latencyMs: number;
  readonly clients: number;
  readonly seconds: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** True for a value that must differ per transaction (an id, a key); false for one kept as captured. */
function replaceable(value: string): boolean {
  return value.length <= 255 && !NUMBER.test(value) && !TIMESTAMP.test(value) && !/^[[{"]/.test(value);
}

/** Sends `samples` requests one after another and groups the traced statements by request. */
export async function captureStatements(trace: SqlTrace, base: string, spec: RequestSpec, samples = 12): Promise<Execution[][]> {
  const windows: Execution[][] = [];
  for (let i = 0; i < samples; i++) {
    await sleep(100);
    const next = spec.next?.();
    trace.reset();
    const from = performance.now();
    const res = await fetch(`${base}${spec.path}`, {
      method: spec.method,
      headers: { ...(next || spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers, ...next?.headers },
      body: next?.body ?? spec.body,
    });
    await res.arrayBuffer();
    const to = performance.now();
    if (res.status >= 300) throw new Error(`SQL capture: ${spec.method} ${spec.path} → ${res.status}`);
    windows.push(trace.executions().filter((e) => e.at >= from && e.at <= to));
  }
  return windows;
}

/** The route's statement sequence and the pgbench script replaying it (see the file comment). */
export async function buildBaseline(windows: Execution[][], databaseUrl: string): Promise<Baseline> {
  const key = (w: Execution[]): string => w.map((e) => e.text).join('\u0000');
  const groups = new Map<string, Execution[][]>();
  for (const w of windows) groups.set(key(w), [...(groups.get(key(w)) ?? []), w]);
  const candidates = [...groups.values()].filter((g) => g.length >= 2 && (g[0]?.length ?? 0) > 0);
  candidates.sort((a, b) => (a[0]?.length ?? 0) - (b[0]?.length ?? 0) || b.length - a.length);
  const group = candidates[0];
  if (!group) {
    throw new Error(
      `SQL capture: no statement sequence repeated in ${windows.length} requests (windows: ${windows.map((w) => w.length).join(', ')})`,
    );
  }
  const reference = group[0];

  const types = await parameterTypes([...new Set(reference.filter((e) => e.params.length > 0).map((e) => e.text))], databaseUrl);
  const defines: Array<readonly [string, string]> = [];
  const randoms = new Map<string, string>(); // varying value → its \set variable
  const lines: string[] = [];
  reference.forEach((execution, s) => {
    const text = execution.text.replace(/\s+/g, ' ').trim().replace(/;$/, '');
    if (/(^|[^:]):[A-Za-z_"]/.test(text.replace(/'(?:[^']|'')*'/g, "''")) || /'[^']*:[A-Za-z_][^']*'/.test(text)) {
      throw new Error(`SQL capture: pgbench would read a ':' in this statement as a variable: ${text.slice(0, 200)}`);
    }
    const paramTypes = types.get(execution.text) ?? [];
    const sql = text.replace(/\$(\d+)/g, (_, n: string) => {
      const i = Number(n) - 1;
      const value = execution.params[i];
      // regtype prints bpchar as 'character', which as a cast target means character(1)
      const type = (paramTypes[i] ?? 'text').replace(/^character$/, 'bpchar');
      if (value === null || value === undefined) return `CAST(NULL AS ${type})`;
      const varies = group.some((w) => w[s]?.params[i] !== value);
      if (varies && replaceable(value)) {
        let variable = randoms.get(value);
        if (!variable) {
          variable = `r${randoms.size + 1}`;
          randoms.set(value, variable);
        }
        if (UUID.test(value)) return `CAST(CAST(lpad(to_hex(CAST(:${variable} AS bigint)), 32, '0') AS uuid) AS ${type})`;
        // same prefix ('pay_', 'inv_…_') and at least the same length as the captured value
        const prefix = value.replace(/[A-Za-z0-9]+$/, '');
        const digits = `lpad(CAST(:${variable} AS text), ${Math.max(19, value.length - prefix.length)}, '0')`;
        if (prefix === '') return `CAST(${digits} AS ${type})`;
        const name = `c${s + 1}_${n}`;
        defines.push([name, prefix]);
        return `CAST(CAST(:${name} AS text) || ${digits} AS ${type})`;
      }
      const name = `p${s + 1}_${n}`;
      defines.push([name, value]);
      return `:${name}`;
    });
    lines.push(`${sql};`);
  });
  const sets = [...randoms.values()].map((v) => `\\set ${v} random(1, 9000000000000000000)`);
  return {
    statements: reference.map((e) => ({ text: e.text, params: e.params })),
    matched: group.length,
    samples: windows.length,
    script: `${[...sets, ...lines].join('\n')}\n`,
    defines,
  };
}

/** The server's parameter types of each statement (PREPARE, then pg_prepared_statements). */
async function parameterTypes(texts: string[], databaseUrl: string): Promise<Map<string, string[]>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const out = new Map<string, string[]>();
  try {
    for (const [i, text] of texts.entries()) {
      await client.query(`PREPARE bench_baseline_${i} AS ${text}`);
      const { rows } = await client.query<{ types: string[] }>(
        `SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1`,
        [`bench_baseline_${i}`],
      );
      out.set(text, rows[0]?.types ?? []);
      await client.query(`DEALLOCATE bench_baseline_${i}`);
    }
  } finally {
    await client.end();
  }
  return out;
}

/** Runs the script with pgbench against `databaseUrl` (loopback), `clients` connections, for `seconds`. */
export async function runPgbench(
  baseline: Baseline,
  scriptFile: string,
  databaseUrl: string,
  clients: number,
  seconds: number,
): Promise<PgbenchResult> {
  writeFileSync(scriptFile, baseline.script);
  const url = new URL(databaseUrl);
  const args = [
    '--no-vacuum',
    '--protocol=extended',
    `--client=${clients}`,
    `--jobs=${Math.min(clients, 2)}`,
    `--time=${seconds}`,
    `--file=${scriptFile}`,
    `--host=${url.hostname}`,
    `--port=${url.port || '5432'}`,
    `--username=${decodeURIComponent(url.username || 'postgres')}`,
    ...baseline.defines.map(([name, value]) => `--define=${name}=${value}`),
    decodeURIComponent(url.pathname.slice(1)),
  ];
  const env = { ...process.env, ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}) };
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('pgbench', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    child.once('error', (err) =>
      reject(new Error(`pgbench could not start (${err.message}); install the PostgreSQL client tools`)),
    );
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited ${code}:\n${text}`))));
  });
  const number = (re: RegExp): number => Number(re.exec(output)?.[1] ?? Number.NaN);
  const result: PgbenchResult = {
    tps: number(/tps = ([\d.]+)/),
    transactions: number(/number of transactions actually processed: (\d+)/),
    failed: number(/number of failed transactions: (\d+)/) || 0,
    latencyMs: number(/latency average = ([\d.]+) ms/),
    clients,
    seconds,
  };
  if (!Number.isFinite(result.tps) || result.failed > 0) throw new Error(`pgbench: no tps or failed transactions:\n${output}`);
  return result;
}
