/**
 * Prints the NGINX configuration of a partitioned vector-api (docs/scaling.md): one argument
 * per group, its instances separated by commas; group i's instances run with
 * VECTOR_PARTITION=i/<number of groups>.
 *
 *   node bench/ts-run.mjs scripts/vector-partitions.ts [--listen 8080] 10.0.1.1:3001,10.0.1.2:3001 10.0.2.1:3001,10.0.2.2:3001
 */
import { renderPartitionsConf } from './vector-partitions/render';

// after this script's path: `node bench/ts-run.mjs scripts/vector-partitions.ts …` or `node dist/scripts/vector-partitions.js …`
const args = process.argv.slice(process.argv.findIndex((a) => /vector-partitions\.[jt]s$/.test(a)) + 1);
let listen = '8080';
const listenAt = args.indexOf('--listen');
if (listenAt >= 0) {
  listen = args[listenAt + 1] ?? '';
  args.splice(listenAt, 2);
}
try {
  const groups = args.map((arg) => arg.split(',').filter((s) => s !== ''));
  const command = [
    'node bench/ts-run.mjs scripts/vector-partitions.ts',
    ...(listenAt >= 0 ? ['--listen', listen] : []),
    ...args,
  ].join(' ');
  process.stdout.write(renderPartitionsConf({ groups, listen, command }));
} catch (err) {
  process.stderr.write(
    `${err instanceof Error ? err.message : String(err)}\nusage: scripts/vector-partitions.ts [--listen 8080] <group 1 host:port,…> <group 2 host:port,…> …\n`,
  );
  process.exit(2);
}
