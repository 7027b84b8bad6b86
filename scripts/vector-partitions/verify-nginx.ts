/**
 * Checks against a real nginx (not part of the test suites: it needs the nginx binary) that
 * the generated configuration routes each table to the group partitionOf() names. For
 * n = 2, 3, 7 and 64 groups, it starts
 * - one nginx of stand-in instances, one port per group, each answering its group's number, and
 * - the configuration of scripts/vector-partitions.ts in front of them, as generated,
 * then requests per-table routes of 300 table names through the proxy and compares which
 * group answered with partitionOf(name, n); table-less routes must reach some group.
 *
 *   node bench/ts-run.mjs scripts/vector-partitions/verify-nginx.ts
 *
 * Prints one line per n and exits 1 on the first disagreement.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partitionOf } from '../../apps/vector-api/src/tables/partition';
import { freePort } from '../local-infra';
import { renderPartitionsConf } from './render';

const NAMES = [
  ...Array.from({ length: 200 }, (_, i) => `table-${i}`),
  ...Array.from(
    { length: 100 },
    (_, i) => `${'abcdefghijklmnopqrstuvwxyz0123456789_-'.slice(i % 30, (i % 30) + 1 + (i % 9))}${i * 7919}`,
  ),
];
const ROUTES = (name: string): Array<[method: string, path: string]> => [
  ['POST', `/v1/tables/${name}/query`],
  ['GET', `/v1/tables/${name}`],
];

function startNginx(dir: string, name: string, conf: string): ChildProcess {
  const file = join(dir, `${name}.conf`);
  writeFileSync(file, conf);
  const globals = `daemon off; pid ${join(dir, `${name}.pid`)}; error_log ${join(dir, `${name}.error.log`)};`;
  execFileSync('nginx', ['-t', '-q', '-p', dir, '-c', file, '-g', globals], { stdio: 'inherit' });
  return spawn('nginx', ['-p', dir, '-c', file, '-g', globals], { stdio: 'inherit' });
}

async function answer(url: string, method: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, { method, body: method === 'POST' ? '{}' : undefined });
      return (await res.text()).trim();
    } catch (err) {
      if (attempt >= 50) throw err; // nginx still starting
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function verify(n: number, dir: string): Promise<void> {
  const ports: number[] = [];
  for (let i = 0; i < n + 1; i++) ports.push(await freePort(0));
  const proxyPort = ports.pop() as number;
  const backends = `events {}
http {
    access_log off;
    default_type text/plain;
${ports.map((port, i) => `    server { listen 127.0.0.1:${port}; location / { return 200 "${i + 1} $request_uri\\n"; } }`).join('\n')}
}
`;
  const proxy = renderPartitionsConf({
    groups: ports.map((port) => [`127.0.0.1:${port}`]),
    listen: `127.0.0.1:${proxyPort}`,
    command: 'scripts/vector-partitions/verify-nginx.ts',
  }).replace('http {\n', `http {\n    access_log off;\n`);
  const children = [startNginx(dir, `backends-${n}`, backends), startNginx(dir, `proxy-${n}`, proxy)];
  try {
    const perGroup = new Array<number>(n).fill(0);
    for (const name of NAMES) {
      const expected = partitionOf(name, n);
      for (const [method, path] of ROUTES(name)) {
        const got = await answer(`http://127.0.0.1:${proxyPort}${path}`, method);
        if (got !== `${expected} ${path}`)
          throw new Error(`n=${n}: ${method} ${path} reached "${got}", partitionOf says group ${expected}`);
      }
      perGroup[expected - 1]++;
    }
    for (const path of ['/v1/tables', '/health/ready', '/metrics', '/openapi.json', '/admin/v1/tokens']) {
      const got = await answer(`http://127.0.0.1:${proxyPort}${path}`, 'GET');
      if (!new RegExp(`^([1-9][0-9]?) ${path}$`).test(got)) throw new Error(`n=${n}: GET ${path} reached "${got}"`);
    }
    const spread = n <= 7 ? ` (tables per group: ${perGroup.join(' ')})` : '';
    process.stdout.write(`n=${n}: ${NAMES.length} tables × ${ROUTES('x').length} routes routed as partitionOf says${spread}\n`);
  } finally {
    for (const child of children) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGQUIT'); // nginx's graceful stop
      await exited;
    }
  }
}

async function main(): Promise<void> {
  process.stdout.write(spawnSync('nginx', ['-v'], { encoding: 'utf8' }).stderr); // "nginx version: nginx/1.22.1"
  const dir = mkdtempSync(join(tmpdir(), 'vector-partitions-nginx-'));
  try {
    for (const n of [2, 3, 7, 64]) await verify(n, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
