/**
 * The snapshot store's two backends against real storage: PostgreSQL (a fresh database)
 * and a real temporary directory. Small chunks (CHUNK bytes) make multi-chunk payloads
 * cheap; one round trip per backend uses the real SNAPSHOT_CHUNK_BYTES.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, open, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaService } from '@app/platform';
import { Pool } from 'pg';
import { VectorConfig } from '../../apps/vector-api/src/config';
import { DirectorySnapshotStore } from '../../apps/vector-api/src/snapshots/directory-snapshot-store';
import { PostgresSnapshotStore } from '../../apps/vector-api/src/snapshots/postgres-snapshot-store';
import {
  SNAPSHOT_CHUNK_BYTES,
  SNAPSHOT_STORE,
  SnapshotCorruptError,
  type SnapshotHeader,
  type SnapshotInfo,
  type SnapshotStore,
} from '../../apps/vector-api/src/snapshots/snapshot-store';
import { SnapshotsRepository } from '../../apps/vector-api/src/snapshots/snapshots.repository';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { mulberry32 } from '../support/random';
import { eventually, startVectorApp } from './support';

/** An odd chunk size, so payload pieces, chunks and the payload's end never line up. */
const CHUNK = 1000;

/** `length` pseudo-random bytes, the same for the same seed (4-byte words of mulberry32). */
function bytesOf(length: number, seed: number): Buffer {
  const rand = mulberry32(seed);
  const words = new Uint32Array(Math.ceil(length / 4));
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(rand() * 2 ** 32);
  return Buffer.from(words.buffer, 0, length);
}

/** The payload in pieces of these sizes, repeated (odd, some across chunk boundaries). */
// eslint-disable-next-line @typescript-eslint/require-await -- a payload is an AsyncIterable; this one has nothing to wait for
async function* pieces(data: Buffer, sizes: readonly number[] = [1, 999, 1001, 3, 2500, 7]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let i = 0; offset < data.length; i++) {
    const size = sizes[i % sizes.length];
    yield new Uint8Array(data.subarray(offset, offset + size));
    offset += size;
  }
}

/** Yields `before` bytes, then throws (a producer that fails midway). */
async function* failing(data: Buffer, before: number): AsyncGenerator<Uint8Array> {
  yield* pieces(data.subarray(0, before));
  throw new Error('producer failed');
}

/** Yields `before` bytes, then waits for `gate` (a writer that stopped: crashed, as far as storage can tell). */
async function* stalled(data: Buffer, before: number, gate: Promise<void>): AsyncGenerator<Uint8Array> {
  yield* pieces(data.subarray(0, before));
  await gate;
  yield new Uint8Array(data.subarray(before));
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<{ data: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(Buffer.from(part));
  return { data: Buffer.concat(parts), chunks: parts.length };
}

/** Reads until it fails; how many chunks came before the failure, and the error. */
async function readUntilError(source: AsyncIterable<Uint8Array>): Promise<{ before: number; error: unknown }> {
  let before = 0;
  try {
    for await (const _ of source) before += 1;
  } catch (error) {
    return { before, error };
  }
  return { before, error: undefined };
}

const header = (seq: bigint, fingerprint = 'hnsw:m16:ef200'): SnapshotHeader => ({ seq, formatVersion: 3, fingerprint });

/** What one backend needs besides its store: a way to look at and damage what it stored. */
interface Backend {
  readonly store: SnapshotStore;
  /** A small-chunk store over the same storage. */
  readonly small: SnapshotStore;
  /** Everything stored for the table: published or not (row ids or file names). */
  stored(tableId: string): Promise<string[]>;
  /** Flips one byte of the payload at this offset, leaving every recorded hash as it was. */
  flipByte(info: SnapshotInfo, offset: number): Promise<void>;
  /** Removes the end of the stored payload (the last chunk, the file's last bytes). */
  truncate(info: SnapshotInfo): Promise<void>;
}

describe('vector-api snapshot store', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  let repository: SnapshotsRepository;
  let pool: Pool;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = new PrismaService({ url: db.url, poolSize: 2 });
    repository = new SnapshotsRepository(prisma, Object.assign(new VectorConfig(), { DATABASE_URL: db.url }));
    pool = new Pool({ connectionString: db.url, max: 2 });
    dir = await mkdtemp(join(tmpdir(), 'snapshot-store-spec-'));
  });
  afterAll(async () => {
    await repository.onApplicationShutdown();
    await prisma.$disconnect();
    await pool.end();
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  });

  async function newTable(): Promise<string> {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO vector_tables (id, project_id, name, dimension, index_kind) VALUES (gen_random_uuid(), 'proj_default', $1, 8, 'hnsw') RETURNING id`,
      [`t-${randomUUID().slice(0, 8)}`],
    );
    return rows[0].id;
  }

  const backends: Record<'postgres' | 'directory', () => Backend> = {
    postgres: () => ({
      store: new PostgresSnapshotStore(repository),
      small: new PostgresSnapshotStore(repository, CHUNK),
      stored: async (tableId) => {
        const { rows } = await pool.query<{ id: string; chunks: string }>(
          `SELECT s.id, (SELECT count(*) FROM vector_snapshot_chunks c WHERE c.snapshot_id = s.id) AS chunks
           FROM vector_snapshots s WHERE s.table_id = $1 ORDER BY s.id`,
          [tableId],
        );
        const { rows: orphans } = await pool.query(
          `SELECT 1 FROM vector_snapshot_chunks c WHERE NOT EXISTS (SELECT 1 FROM vector_snapshots s WHERE s.id = c.snapshot_id)`,
        );
        return [...rows.map((r) => `${r.id} (${r.chunks} chunks)`), ...orphans.map(() => 'orphan chunk')];
      },
      flipByte: async (info, offset) => {
        const n = Math.floor(offset / CHUNK);
        const at = offset % CHUNK;
        const res = await pool.query(
          `UPDATE vector_snapshot_chunks SET data = set_byte(data, $3, get_byte(data, $3) # 1) WHERE snapshot_id = $1 AND n = $2`,
          [info.id, n, at],
        );
        expect(res.rowCount).toBe(1);
      },
      truncate: async (info) => {
        const res = await pool.query(`DELETE FROM vector_snapshot_chunks WHERE snapshot_id = $1 AND n = $2`, [
          info.id,
          info.chunks - 1,
        ]);
        expect(res.rowCount).toBe(1);
      },
    }),
    directory: () => ({
      store: new DirectorySnapshotStore(dir),
      small: new DirectorySnapshotStore(dir, CHUNK),
      stored: async (tableId) => {
        const names = (await readdir(join(dir, tableId)).catch(() => [] as string[])).sort();
        return Promise.all(names.map(async (name) => `${name} (${(await stat(join(dir, tableId, name))).size} bytes)`));
      },
      flipByte: async (info, offset) => {
        const fh = await open(join(dir, info.tableId, `${info.id}.snap`), 'r+');
        try {
          const one = Buffer.alloc(1);
          await fh.read(one, 0, 1, offset);
          one[0] = one[0] ^ 1;
          await fh.write(one, 0, 1, offset);
        } finally {
          await fh.close();
        }
      },
      truncate: async (info) => {
        const file = join(dir, info.tableId, `${info.id}.snap`);
        await truncate(file, (await stat(file)).size - 1);
      },
    }),
  };

  describe.each(['postgres', 'directory'] as const)('%s', (kind) => {
    let b: Backend;
    beforeAll(() => {
      b = backends[kind]();
    });

    it('is the backend it says', () => {
      expect(b.store.kind).toBe(kind);
    });

    it('round-trips a multi-chunk payload written in odd pieces, and lists it', async () => {
      const tableId = await newTable();
      const data = bytesOf(10 * CHUNK + 7, 1);
      const info = await b.small.write(tableId, header(2n ** 60n + 1n), pieces(data));
      expect(info).toMatchObject({
        tableId,
        seq: 2n ** 60n + 1n,
        formatVersion: 3,
        fingerprint: 'hnsw:m16:ef200',
        bytes: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
        chunks: 11,
      });
      expect(await b.small.list(tableId)).toEqual([info]);
      const back = await collect(b.small.read(info));
      expect(back.chunks).toBe(11);
      expect(back.data.equals(data)).toBe(true);
    });

    it('round-trips payloads of SNAPSHOT_CHUNK_BYTES chunks, and an empty one', async () => {
      const tableId = await newTable();
      const data = bytesOf(2 * SNAPSHOT_CHUNK_BYTES + 12345, 2);
      const info = await b.store.write(tableId, header(9n), pieces(data, [65536, 3, 1_048_577]));
      expect(info.chunks).toBe(3);
      const back = await collect(b.store.read(info));
      expect(back.data.equals(data)).toBe(true);

      const empty = await b.store.write(tableId, header(1n), pieces(Buffer.alloc(0)));
      expect(empty).toMatchObject({ bytes: 0, chunks: 0 });
      expect((await collect(b.store.read(empty))).data.length).toBe(0);
    });

    it('fails a read at the chunk where one stored byte changed', async () => {
      const tableId = await newTable();
      const data = bytesOf(10 * CHUNK + 7, 3);
      const info = await b.small.write(tableId, header(1n), pieces(data));
      await b.flipByte(info, 4 * CHUNK + 17);
      const { before, error } = await readUntilError(b.small.read(info));
      expect(error).toBeInstanceOf(SnapshotCorruptError);
      expect(before).toBe(4); // chunks 0–3 were good; chunk 4 never came out
    });

    it('fails a read of a truncated payload', async () => {
      const tableId = await newTable();
      const data = bytesOf(5 * CHUNK + 300, 4);
      const info = await b.small.write(tableId, header(1n), pieces(data));
      await b.truncate(info);
      const { error } = await readUntilError(b.small.read(info));
      expect(error).toBeInstanceOf(SnapshotCorruptError);
    });

    it('fails a read when the published length or hash is not what is stored', async () => {
      const tableId = await newTable();
      const data = bytesOf(3 * CHUNK, 5);
      const info = await b.small.write(tableId, header(1n), pieces(data));
      for (const wrong of [
        { ...info, bytes: info.bytes - 1 },
        { ...info, sha256: '0'.repeat(64) },
      ]) {
        const { error } = await readUntilError(b.small.read(wrong));
        expect(error).toBeInstanceOf(SnapshotCorruptError);
      }
      const { error } = await readUntilError(b.small.read({ ...info, id: randomUUID() }));
      expect(error).toBeInstanceOf(SnapshotCorruptError);
    });

    it('leaves nothing listed when the payload fails midway', async () => {
      const tableId = await newTable();
      const data = bytesOf(8 * CHUNK, 6);
      await expect(b.small.write(tableId, header(1n), failing(data, 4 * CHUNK + 5))).rejects.toThrow('producer failed');
      expect(await b.small.list(tableId)).toEqual([]);
      await b.small.prune(tableId, 10, 0);
      expect(await b.stored(tableId)).toEqual([]);
    });

    it.each([
      ['with more to store after it resumes', 3],
      ['with only its publishing left', 0],
    ])(
      'never lists a write that stopped midway, prunes it once it is stale, and then refuses to publish it (%s)',
      async (_, after) => {
        const tableId = await newTable();
        const data = bytesOf((5 + after) * CHUNK, 7);
        const kept = await b.small.write(tableId, header(1n), pieces(bytesOf(CHUNK, 8)));
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const writing = b.small.write(tableId, header(2n), stalled(data, 5 * CHUNK, gate));
        writing.catch(() => undefined);
        try {
          // the stalled write has stored its first five chunks: they exist, unpublished
          const fiveChunks = kind === 'postgres' ? '(5 chunks)' : `.snap.partial (${5 * CHUNK} bytes)`;
          expect(await eventually(async () => (await b.stored(tableId)).some((s) => s.endsWith(fiveChunks)))).toBe(true);
          expect(await b.small.list(tableId)).toEqual([kept]);
          const partial = await b.stored(tableId);

          await b.small.prune(tableId, 10, 60 * 60 * 1000); // not stale yet: stays
          expect(await b.stored(tableId)).toEqual(partial);
          await b.small.prune(tableId, 10, 0);
          expect(await b.stored(tableId)).toHaveLength(1);
          expect(await b.small.list(tableId)).toEqual([kept]);

          release();
          await expect(writing).rejects.toThrow(); // what it wrote is gone: it cannot store more, nor publish
          expect(await b.small.list(tableId)).toEqual([kept]);
          expect(await b.stored(tableId)).toHaveLength(1);
        } finally {
          release(); // a failed expectation must not leave the write waiting
        }
      },
    );

    it('lists best first (highest seq, then newest) and prune keeps the best N', async () => {
      const tableId = await newTable();
      const write = (seq: bigint, seed: number): Promise<SnapshotInfo> =>
        b.small.write(tableId, header(seq), pieces(bytesOf(2 * CHUNK + seed, seed)));
      const s5 = await write(5n, 10);
      const s7old = await write(7n, 11);
      // a later write of the same seq must be newer, to the millisecond the stores record
      expect(await eventually(() => Promise.resolve(Date.now() > s7old.createdAt.getTime() + 1), 100, 2)).toBe(true);
      const s7new = await write(7n, 12);
      const s3 = await write(3n, 13);
      const big = await write(2n ** 62n, 14);
      expect((await b.small.list(tableId)).map((s) => s.id)).toEqual([big.id, s7new.id, s7old.id, s5.id, s3.id]);

      await b.small.prune(tableId, 3);
      expect((await b.small.list(tableId)).map((s) => s.id)).toEqual([big.id, s7new.id, s7old.id]);
      expect(await b.stored(tableId)).toHaveLength(3);
      // what is kept still reads
      expect((await collect(b.small.read(s7old))).data.equals(bytesOf(2 * CHUNK + 11, 11))).toBe(true);

      await b.small.prune(tableId, 0);
      expect(await b.small.list(tableId)).toEqual([]);
      expect(await b.stored(tableId)).toEqual([]);
    });

    it('deleteTable removes every snapshot of that table only', async () => {
      const [a, other] = [await newTable(), await newTable()];
      for (const t of [a, other]) for (const seq of [1n, 2n]) await b.small.write(t, header(seq), pieces(bytesOf(1500, 20)));
      await b.small.deleteTable(a);
      expect(await b.small.list(a)).toEqual([]);
      expect(await b.stored(a)).toEqual([]);
      expect(await b.small.list(other)).toHaveLength(2);
      await b.small.deleteTable(randomUUID()); // nothing stored: no error
    });
  });

  it('postgres: dropping the vector_tables row removes its snapshots and their chunks', async () => {
    const store = new PostgresSnapshotStore(repository, CHUNK);
    const tableId = await newTable();
    await store.write(tableId, header(1n), pieces(bytesOf(3 * CHUNK, 30)));
    const before = await pool.query(
      `SELECT count(*)::int AS n FROM vector_snapshot_chunks c JOIN vector_snapshots s ON s.id = c.snapshot_id WHERE s.table_id = $1`,
      [tableId],
    );
    expect(before.rows[0]).toEqual({ n: 3 });
    await pool.query(`DELETE FROM vector_tables WHERE id = $1`, [tableId]);
    expect((await pool.query(`SELECT id FROM vector_snapshots WHERE table_id = $1`, [tableId])).rows).toEqual([]);
    expect(
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM vector_snapshot_chunks c WHERE NOT EXISTS (SELECT 1 FROM vector_snapshots s WHERE s.id = c.snapshot_id)`,
        )
      ).rows[0],
    ).toEqual({ n: 0 });
  });

  it('postgres: a chunk rewritten with a matching chunk hash is still caught by the hash of the whole', async () => {
    const store = new PostgresSnapshotStore(repository, CHUNK);
    const tableId = await newTable();
    const info = await store.write(tableId, header(1n), pieces(bytesOf(4 * CHUNK, 31)));
    await pool.query(
      `UPDATE vector_snapshot_chunks SET data = set_byte(data, 9, get_byte(data, 9) # 1) WHERE snapshot_id = $1 AND n = 2`,
      [info.id],
    );
    await pool.query(`UPDATE vector_snapshot_chunks SET sha256 = encode(sha256(data), 'hex') WHERE snapshot_id = $1 AND n = 2`, [
      info.id,
    ]);
    const { before, error } = await readUntilError(store.read(info));
    expect(error).toBeInstanceOf(SnapshotCorruptError);
    expect(before).toBe(4); // every chunk passed its own check; the end did not
  });

  it('postgres: a write to a table that does not exist fails and leaves nothing', async () => {
    const store = new PostgresSnapshotStore(repository, CHUNK);
    const tableId = randomUUID();
    await expect(store.write(tableId, header(1n), pieces(bytesOf(10, 32)))).rejects.toThrow();
    expect((await pool.query(`SELECT id FROM vector_snapshots WHERE table_id = $1`, [tableId])).rows).toEqual([]);
  });

  it('directory: a file that lost its end is not listed, and prune removes it once stale', async () => {
    const store = new DirectorySnapshotStore(dir, CHUNK);
    const tableId = await newTable();
    const info = await store.write(tableId, header(1n), pieces(bytesOf(2 * CHUNK, 33)));
    await truncate(join(dir, tableId, `${info.id}.snap`), CHUNK);
    expect(await store.list(tableId)).toEqual([]);
    await store.prune(tableId, 5, 60 * 60 * 1000);
    expect(await readdir(join(dir, tableId))).toEqual([`${info.id}.snap`]);
    await store.prune(tableId, 5, 0);
    expect(await readdir(join(dir, tableId))).toEqual([]);
  });

  describe('SnapshotsModule', () => {
    it('provides the PostgreSQL store by default and the directory store when VECTOR_SNAPSHOT_DIR is set', async () => {
      const pg = await startVectorApp({}, db);
      try {
        expect(pg.app.get<SnapshotStore>(SNAPSHOT_STORE).kind).toBe('postgres');
      } finally {
        await pg.close();
      }
      const files = await startVectorApp({ VECTOR_SNAPSHOT_DIR: dir }, db);
      try {
        expect(files.app.get<SnapshotStore>(SNAPSHOT_STORE).kind).toBe('directory');
      } finally {
        await files.close();
      }
    });

    it('refuses to boot with a VECTOR_SNAPSHOT_DIR that is relative, missing or a file', async () => {
      await expect(startVectorApp({ VECTOR_SNAPSHOT_DIR: 'snapshots' }, db)).rejects.toThrow(
        /VECTOR_SNAPSHOT_DIR must be an absolute path/,
      );
      await expect(startVectorApp({ VECTOR_SNAPSHOT_DIR: join(dir, 'not-mounted') }, db)).rejects.toThrow(
        /VECTOR_SNAPSHOT_DIR must be an existing directory \(got ".*not-mounted"\)/,
      );
      const file = join(dir, 'a-file');
      await writeFile(file, 'x');
      await expect(startVectorApp({ VECTOR_SNAPSHOT_DIR: file }, db)).rejects.toThrow(/VECTOR_SNAPSHOT_DIR must be a directory/);
    });
  });
});
