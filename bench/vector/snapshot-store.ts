/**
 * Snapshot store benchmark (issue 16): write and read throughput and the process's peak
 * RSS for a 1 GiB payload through both backends, plus what chose their settings — the chunk
 * size, the column's storage (EXTERNAL vs pglz vs lz4) and Prisma's bytea path against the
 * node-postgres paths the repository uses. Prints a report and writes
 * .data/bench-snapshots/results.json.
 *
 *   node bench/ts-run.mjs bench/vector/snapshot-store.ts
 *   BENCH_SNAPSHOT_GIB=0.25 node bench/ts-run.mjs bench/vector/snapshot-store.ts   (smaller main payload)
 *   BENCH_SNAPSHOT_DIR=/mnt/efs/x …   (the directory backend on another file system; default a temp dir)
 *
 * Needs PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres):
 * it creates a database bench_snapshots_<random>, migrates it and drops it at the end.
 * The payload looks like an HNSW table: blocks of 128-dimension float32 vectors followed by
 * their 32 int32 neighbour labels. The directory read comes from the page cache when the
 * machine has the memory (it is read right after being written).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { VectorConfig } from '../../apps/vector-api/src/config';
import { DirectorySnapshotStore } from '../../apps/vector-api/src/snapshots/directory-snapshot-store';
import { PostgresSnapshotStore } from '../../apps/vector-api/src/snapshots/postgres-snapshot-store';
import { SNAPSHOT_CHUNK_BYTES, type SnapshotInfo, type SnapshotStore } from '../../apps/vector-api/src/snapshots/snapshot-store';
import { SnapshotsRepository } from '../../apps/vector-api/src/snapshots/snapshots.repository';
import { migrate } from '../../libs/platform/src/database/migrator';
import { PrismaService } from '../../libs/platform/src/database/prisma.service';
import { gaussian, mulberry32 } from '../../test/support/random';

const MiB = 1024 * 1024;
const ROOT = join(__dirname, '..', '..');
const OUT_DIR = join(ROOT, '.data', 'bench-snapshots');
const MAIN_BYTES = Math.round(Number(process.env.BENCH_SNAPSHOT_GIB ?? 1) * 1024) * MiB;
const SIDE_BYTES = Number(process.env.BENCH_SNAPSHOT_SIDE_MIB ?? 256) * MiB;
/** The producer's piece size: what an engine serialiser might hand over at a time. */
const PIECE = MiB + 4;

const log = (line: string): void => {
  process.stderr.write(`[bench:snapshots] ${line}\n`);
};

/** 64 MiB that look like an HNSW table: per 1000 rows, 1000 × 128 float32 then 1000 × 32 int32 labels. */
function realisticPool(): Buffer {
  const rand = mulberry32(16);
  const pool = Buffer.alloc(64 * MiB);
  const rows = 1000;
  const block = rows * (128 * 4 + 32 * 4);
  for (let at = 0; at + block <= pool.length; at += block) {
    const vectors = new Float32Array(pool.buffer, pool.byteOffset + at, rows * 128);
    for (let i = 0; i < vectors.length; i++) vectors[i] = gaussian(rand) / Math.sqrt(128);
    const links = new Int32Array(pool.buffer, pool.byteOffset + at + rows * 128 * 4, rows * 32);
    for (let i = 0; i < links.length; i++) links[i] = Math.floor(rand() * 1_000_000);
  }
  return pool;
}

// eslint-disable-next-line @typescript-eslint/require-await -- a payload is an AsyncIterable; this one has nothing to wait for
async function* payload(pool: Buffer, bytes: number): AsyncGenerator<Uint8Array> {
  for (let sent = 0; sent < bytes;) {
    const at = sent % pool.length;
    const size = Math.min(PIECE, bytes - sent, pool.length - at);
    yield pool.subarray(at, at + size);
    sent += size;
  }
}

/** Peak resident memory since the last reset (VmHWM; reset through /proc/self/clear_refs where allowed). */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
function peakRssMiB(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
const rssMiB = (): number => process.memoryUsage().rss / MiB;

interface Phase {
  readonly mbPerS: number;
  readonly seconds: number;
  /** RSS when the phase began (after a GC) and the highest RSS during it. */
  readonly rssBeforeMiB: number;
  readonly peakRssMiB: number;
}

async function timed(work: () => Promise<void>): Promise<Phase> {
  global.gc?.();
  resetPeak();
  const rssBeforeMiB = rssMiB();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  return { seconds, mbPerS: 0, rssBeforeMiB, peakRssMiB: peakRssMiB() };
}

async function writeRead(
  store: SnapshotStore,
  tableId: string,
  pool: Buffer,
  bytes: number,
): Promise<{ info: SnapshotInfo; write: Phase; read: Phase }> {
  let info: SnapshotInfo | undefined;
  const w = await timed(async () => {
    info = await store.write(tableId, { seq: 1n, formatVersion: 1, fingerprint: 'bench' }, payload(pool, bytes));
  });
  if (!info) throw new Error('no snapshot written');
  const published = info;
  let seen = 0;
  const r = await timed(async () => {
    for await (const chunk of store.read(published)) seen += chunk.byteLength;
  });
  if (seen !== bytes) throw new Error(`read ${seen} of ${bytes} bytes`);
  const mb = bytes / MiB;
  return { info: published, write: { ...w, mbPerS: mb / w.seconds }, read: { ...r, mbPerS: mb / r.seconds } };
}

/** DROP DATABASE once the closed pools' connections are gone (WITH (FORCE) would fail a connection still closing). */
async function dropWhenIdle(admin: Client, name: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      return;
    } catch (err) {
      if (!/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `bench_snapshots_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const dirRoot = process.env.BENCH_SNAPSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'bench-snapshots-'));
  mkdirSync(dirRoot, { recursive: true });
  const prisma = new PrismaService({ url: dbUrl, poolSize: 2 });
  const repository = new SnapshotsRepository(prisma, Object.assign(new VectorConfig(), { DATABASE_URL: dbUrl }));
  const sql = new Pool({ connectionString: dbUrl, max: 2 });
  const results: Record<string, unknown> = {};
  try {
    await migrate(dbUrl, { dir: join(ROOT, 'prisma', 'migrations') });
    const { rows } = await sql.query<{ id: string; version: string }>(
      `INSERT INTO vector_tables (id, project_id, name, dimension, index_kind) VALUES (gen_random_uuid(), 'proj_default', 'bench', 128, 'hnsw')
       RETURNING id, version() AS version`,
    );
    const tableId = (rows[0] as { id: string }).id;
    const pool = realisticPool();
    const machine = {
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      node: process.version,
      postgres: (rows[0] as { version: string }).version.split(' on ')[0],
      loadAtStart: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
      peakResettable: resetPeak(),
      baselineRssMiB: Math.round(rssMiB()),
    };
    results.machine = machine;
    log(`machine: ${JSON.stringify(machine)}`);

    // 1. The main measurement: MAIN_BYTES through each backend at SNAPSHOT_CHUNK_BYTES, each
    //    in a process of its own, so its RSS is that backend's alone.
    const main: Record<string, unknown> = {};
    for (const kind of ['postgres', 'directory'] as const) {
      const child = spawnSync(process.execPath, [join(ROOT, 'bench', 'ts-run.mjs'), __filename], {
        env: {
          ...process.env,
          BENCH_SNAPSHOT_MAIN: kind,
          BENCH_SNAPSHOT_DB_URL: dbUrl,
          BENCH_SNAPSHOT_TABLE: tableId,
          BENCH_SNAPSHOT_DIR: dirRoot,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 16 * MiB,
      });
      if (child.status !== 0) throw new Error(`the ${kind} measurement failed (exit ${child.status})`);
      main[kind] = JSON.parse(child.stdout) as unknown;
    }
    results.main = { bytes: MAIN_BYTES, chunkBytes: SNAPSHOT_CHUNK_BYTES, ...main };
    await sql.query('VACUUM vector_snapshot_chunks');

    // 2. Chunk size (PostgreSQL; the directory writes and reads whole chunks either way).
    const chunkSizes: Record<string, unknown> = {};
    for (const mib of [1, 4, 8, 16, 32]) {
      const store = new PostgresSnapshotStore(repository, mib * MiB);
      const r = await writeRead(store, tableId, pool, SIDE_BYTES);
      chunkSizes[`${mib} MiB`] = { write: r.write, read: r.read };
      log(
        `chunk ${mib} MiB: write ${r.write.mbPerS.toFixed(0)} MB/s (RSS ${r.write.rssBeforeMiB.toFixed(0)} → peak ${r.write.peakRssMiB.toFixed(0)} MiB), ` +
          `read ${r.read.mbPerS.toFixed(0)} MB/s (RSS ${r.read.rssBeforeMiB.toFixed(0)} → peak ${r.read.peakRssMiB.toFixed(0)} MiB)`,
      );
      await store.deleteTable(tableId);
      await sql.query('VACUUM vector_snapshot_chunks');
    }
    results.chunkSizes = chunkSizes;

    // 3. The column's storage: EXTERNAL (migrated) against compression (pglz, the server's default, and lz4).
    const storage: Record<string, unknown> = {};
    const store = new PostgresSnapshotStore(repository);
    for (const [label, ddl] of [
      ['EXTERNAL (no compression)', `ALTER TABLE vector_snapshot_chunks ALTER COLUMN data SET STORAGE EXTERNAL`],
      [
        'EXTENDED, pglz',
        `ALTER TABLE vector_snapshot_chunks ALTER COLUMN data SET STORAGE EXTENDED, ALTER COLUMN data SET COMPRESSION pglz`,
      ],
      [
        'EXTENDED, lz4',
        `ALTER TABLE vector_snapshot_chunks ALTER COLUMN data SET STORAGE EXTENDED, ALTER COLUMN data SET COMPRESSION lz4`,
      ],
    ] as const) {
      try {
        await sql.query(ddl);
      } catch (err) {
        storage[label] = { error: (err as Error).message };
        continue;
      }
      const r = await writeRead(store, tableId, pool, SIDE_BYTES);
      const size = await sql.query<{ stored: string }>(
        `SELECT sum(pg_column_size(data))::text AS stored FROM vector_snapshot_chunks WHERE snapshot_id = $1`,
        [r.info.id],
      );
      const storedRatio = Number(size.rows[0]?.stored ?? 0) / SIDE_BYTES;
      storage[label] = { write: r.write, read: r.read, storedRatio };
      log(
        `${label}: write ${r.write.mbPerS.toFixed(0)} MB/s, read ${r.read.mbPerS.toFixed(0)} MB/s, stored ${(storedRatio * 100).toFixed(1)} % of the payload`,
      );
      await store.deleteTable(tableId);
      await sql.query('VACUUM vector_snapshot_chunks');
    }
    await sql.query(
      `ALTER TABLE vector_snapshot_chunks ALTER COLUMN data SET STORAGE EXTERNAL, ALTER COLUMN data SET COMPRESSION DEFAULT`,
    );
    results.storage = storage;

    // 4. The chunk bytes' path: Prisma's bytea against node-postgres (binary parameter in, hex text or binary COPY out).
    const paths: Record<string, unknown> = {};
    const chunks = SIDE_BYTES / SNAPSHOT_CHUNK_BYTES;
    const snapshotId = randomUUID();
    await sql.query(
      `INSERT INTO vector_snapshots (id, table_id, seq, format_version, fingerprint) VALUES ($1, $2, 1, 1, 'bench')`,
      [snapshotId, tableId],
    );
    const chunkData = (n: number): Buffer =>
      pool.subarray((n * SNAPSHOT_CHUNK_BYTES) % pool.length, ((n * SNAPSHOT_CHUNK_BYTES) % pool.length) + SNAPSHOT_CHUNK_BYTES);
    const mb = SIDE_BYTES / MiB;
    const rate = (p: Phase): Phase => ({ ...p, mbPerS: mb / p.seconds });
    paths['pg INSERT (binary parameter, repository.insertChunk)'] = rate(
      await timed(async () => {
        for (let n = 0; n < chunks; n++) await repository.insertChunk(snapshotId, n, chunkData(n), '0'.repeat(64));
      }),
    );
    paths['pg SELECT (hex text result)'] = rate(
      await timed(async () => {
        for (let n = 0; n < chunks; n++) {
          const r = await sql.query<{ data: Buffer }>(
            `SELECT data FROM vector_snapshot_chunks WHERE snapshot_id = $1 AND n = $2`,
            [snapshotId, n],
          );
          if (r.rows[0]?.data.length !== SNAPSHOT_CHUNK_BYTES) throw new Error('pg read a wrong length');
        }
      }),
    );
    paths['pg COPY TO STDOUT binary (repository.readChunk)'] = rate(
      await timed(async () => {
        for (let n = 0; n < chunks; n++) {
          const r = await repository.readChunk(snapshotId, n);
          if (r?.data.length !== SNAPSHOT_CHUNK_BYTES) throw new Error('copy read a wrong length');
        }
      }),
    );
    await sql.query(`DELETE FROM vector_snapshot_chunks WHERE snapshot_id = $1`, [snapshotId]);
    paths['prisma create (bytea parameter)'] = rate(
      await timed(async () => {
        for (let n = 0; n < chunks; n++) {
          await prisma.vectorSnapshotChunk.create({
            // the pool is a Buffer.alloc: its buffer is an ArrayBuffer, as Prisma's type asks
            data: { snapshotId, n, data: chunkData(n) as Uint8Array<ArrayBuffer>, sha256: '0'.repeat(64) },
            select: { n: true },
          });
        }
      }),
    );
    paths['prisma findUnique (bytea result)'] = rate(
      await timed(async () => {
        for (let n = 0; n < chunks; n++) {
          const row = await prisma.vectorSnapshotChunk.findUnique({
            where: { snapshotId_n: { snapshotId, n } },
            select: { data: true },
          });
          if (row?.data.length !== SNAPSHOT_CHUNK_BYTES) throw new Error('prisma read a wrong length');
        }
      }),
    );
    for (const [label, p] of Object.entries(paths) as Array<[string, Phase]>) {
      log(`${label}: ${p.mbPerS.toFixed(0)} MB/s, RSS ${p.rssBeforeMiB.toFixed(0)} → peak ${p.peakRssMiB.toFixed(0)} MiB`);
    }
    results.paths = paths;
    results.loadAtEnd = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(join(OUT_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await repository.onApplicationShutdown();
    await prisma.$disconnect();
    await sql.end();
    await dropWhenIdle(admin, name);
    await admin.end();
    if (!process.env.BENCH_SNAPSHOT_DIR) rmSync(dirRoot, { recursive: true, force: true });
  }
}

/** One backend's MAIN_BYTES write and read, in this (child) process; prints its numbers as JSON. */
async function mainMeasurement(kind: 'postgres' | 'directory'): Promise<void> {
  const dbUrl = process.env.BENCH_SNAPSHOT_DB_URL as string;
  const tableId = process.env.BENCH_SNAPSHOT_TABLE as string;
  const prisma = new PrismaService({ url: dbUrl, poolSize: 2 });
  const repository = new SnapshotsRepository(prisma, Object.assign(new VectorConfig(), { DATABASE_URL: dbUrl }));
  try {
    const pool = realisticPool();
    // what a running service has loaded already: Prisma's query compiler, a chunk-pool connection
    await prisma.vectorTable.findFirst({ select: { id: true } });
    await repository.readChunk(randomUUID(), 0);
    const startRssMiB = rssMiB();
    const store: SnapshotStore =
      kind === 'postgres'
        ? new PostgresSnapshotStore(repository)
        : new DirectorySnapshotStore(process.env.BENCH_SNAPSHOT_DIR as string);
    const r = await writeRead(store, tableId, pool, MAIN_BYTES);
    await store.deleteTable(tableId);
    log(
      `${kind} ${MAIN_BYTES / MiB} MiB: write ${r.write.mbPerS.toFixed(0)} MB/s (RSS ${r.write.rssBeforeMiB.toFixed(0)} → peak ${r.write.peakRssMiB.toFixed(0)} MiB), ` +
        `read ${r.read.mbPerS.toFixed(0)} MB/s (RSS ${r.read.rssBeforeMiB.toFixed(0)} → peak ${r.read.peakRssMiB.toFixed(0)} MiB)`,
    );
    process.stdout.write(`${JSON.stringify({ startRssMiB, write: r.write, read: r.read })}\n`);
  } finally {
    await repository.onApplicationShutdown();
    await prisma.$disconnect();
  }
}

const only = process.env.BENCH_SNAPSHOT_MAIN;
(only === 'postgres' || only === 'directory' ? mainMeasurement(only) : main()).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
