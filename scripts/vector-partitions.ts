/**
 * The NGINX configuration of a partitioned vector-api, and which partition holds a table
 * (docs/scaling.md).
 *
 *   node bench/ts-run.mjs scripts/vector-partitions.ts [--listen 8080] <group 1 host:port,…> <group 2 host:port,…> …
 *       prints nginx.conf: one argument per group, its instances separated by commas; group
 *       i's instances run with VECTOR_PARTITION=i/<number of groups>
 *   node bench/ts-run.mjs scripts/vector-partitions.ts --owner <n> <table>…
 *       prints "<table> <partition>" for n partitions
 *   node bench/ts-run.mjs scripts/vector-partitions.ts --moves <n> <m> <table>…
 *       prints "<table> <partition of n> <partition of m>" for the tables whose partition
 *       number differs between n and m partitions
 */
import { partitionOf } from '../apps/vector-api/src/tables/partition';
import { renderPartitionsConf } from './vector-partitions/render';

const USAGE = `usage: scripts/vector-partitions.ts [--listen 8080] <group 1 host:port,…> <group 2 host:port,…> …
       scripts/vector-partitions.ts --owner <n> <table>…
       scripts/vector-partitions.ts --moves <n> <m> <table>…
`;

/** A partition count from the command line (partitionOf refuses one outside 1–64). */
function count(arg: string | undefined): number {
  if (!arg || !/^[0-9]+$/.test(arg)) throw new RangeError(`not a number of partitions: ${JSON.stringify(arg ?? '')}`);
  return Number(arg);
}

function run(args: string[]): string {
  if (args[0] === '--owner') {
    const n = count(args[1]);
    return args
      .slice(2)
      .map((table) => `${table} ${partitionOf(table, n)}\n`)
      .join('');
  }
  if (args[0] === '--moves') {
    const [n, m] = [count(args[1]), count(args[2])];
    return args
      .slice(3)
      .map((table) => [table, partitionOf(table, n), partitionOf(table, m)] as const)
      .filter(([, from, to]) => from !== to)
      .map(([table, from, to]) => `${table} ${from} ${to}\n`)
      .join('');
  }
  let listen = '8080';
  const at = args.indexOf('--listen');
  if (at >= 0) {
    listen = args[at + 1] ?? '';
    args.splice(at, 2);
  }
  const groups = args.map((arg) => arg.split(',').filter((s) => s !== ''));
  const command = ['node bench/ts-run.mjs scripts/vector-partitions.ts', ...(at >= 0 ? ['--listen', listen] : []), ...args].join(
    ' ',
  );
  return renderPartitionsConf({ groups, listen, command });
}

try {
  // after this script's path: `node bench/ts-run.mjs scripts/vector-partitions.ts …` or `node dist/scripts/vector-partitions.js …`
  process.stdout.write(run(process.argv.slice(process.argv.findIndex((a) => /vector-partitions\.[jt]s$/.test(a)) + 1)));
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}
