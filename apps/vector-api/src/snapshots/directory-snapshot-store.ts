import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  compareSnapshots,
  PayloadVerifier,
  rechunk,
  sha256Hex,
  SNAPSHOT_CHUNK_BYTES,
  SNAPSHOT_STALE_MS,
  SnapshotCorruptError,
  type SnapshotHeader,
  type SnapshotInfo,
  type SnapshotStore,
} from './snapshot-store';

/** Last 16 bytes of a snapshot file: this magic, then the footer's length (uint64, big-endian). */
const TRAILER_MAGIC = Buffer.from('VSNAPv1\n', 'latin1');
const TRAILER_BYTES = 16;
const MAX_FOOTER_BYTES = 16 * 1024 * 1024;
const PUBLISHED = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.snap$/;
const PARTIAL = /^\..*\.partial$/;
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The JSON between the payload and the trailer. */
interface Footer {
  id: string;
  tableId: string;
  seq: string;
  formatVersion: number;
  fingerprint: string;
  bytes: number;
  sha256: string;
  createdAt: string;
  chunkBytes: number;
  /** Hex SHA-256 of each chunkBytes range of the payload, in order. */
  chunkSha256: string[];
}

function corrupt(file: string, why: string): SnapshotCorruptError {
  return new SnapshotCorruptError(`snapshot file ${file}: ${why}`);
}

function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

async function writeAll(fh: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.byteLength) {
    const { bytesWritten } = await fh.write(data, offset, data.byteLength - offset);
    offset += bytesWritten;
  }
}

/** Reads exactly `length` bytes at `position`, or fewer when the file ends first. */
async function readAt(fh: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** Makes a rename durable: fsync of the directory (where the platform allows it). */
async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'ENOTSUP') throw err;
  } finally {
    await fh?.close();
  }
}

/**
 * Snapshots as files of a directory every instance reads (`VECTOR_SNAPSHOT_DIR`, e.g. NFS or
 * EFS): `<dir>/<tableId>/<id>.snap` is the payload, then a JSON footer (header, length,
 * SHA-256 of the whole and of each SNAPSHOT_CHUNK_BYTES range), then a 16-byte trailer. A
 * write goes to `.<id>.snap.partial`, is fsynced, and is published by renaming it; list()
 * reads only `*.snap`, so a partial file is never listed. The directory's existence is checked
 * at boot (VectorConfig); table folders are made as needed.
 */
export class DirectorySnapshotStore implements SnapshotStore {
  readonly kind = 'directory' as const;

  constructor(
    private readonly root: string,
    private readonly chunkBytes = SNAPSHOT_CHUNK_BYTES,
  ) {}

  private tableDir(tableId: string): string {
    if (!SAFE_SEGMENT.test(tableId)) throw new Error(`table id ${JSON.stringify(tableId)} cannot name a directory`);
    return join(this.root, tableId);
  }

  async write(tableId: string, header: SnapshotHeader, payload: AsyncIterable<Uint8Array>): Promise<SnapshotInfo> {
    const dir = this.tableDir(tableId);
    await mkdir(dir, { recursive: true });
    const id = randomUUID();
    const createdAt = new Date();
    const partial = join(dir, `.${id}.snap.partial`);
    const fh = await open(partial, 'wx', 0o644);
    let closed = false;
    let writing: Promise<void> | undefined;
    try {
      const whole = createHash('sha256');
      const chunkSha256: string[] = [];
      let bytes = 0;
      for await (const chunk of rechunk(payload, this.chunkBytes)) {
        whole.update(chunk);
        chunkSha256.push(sha256Hex(chunk));
        bytes += chunk.length;
        await writing;
        writing = handled(writeAll(fh, chunk));
      }
      await writing;
      writing = undefined;
      const footer: Footer = {
        id,
        tableId,
        seq: header.seq.toString(),
        formatVersion: header.formatVersion,
        fingerprint: header.fingerprint,
        bytes,
        sha256: whole.digest('hex'),
        createdAt: createdAt.toISOString(),
        chunkBytes: this.chunkBytes,
        chunkSha256,
      };
      const json = Buffer.from(JSON.stringify(footer), 'utf8');
      const trailer = Buffer.alloc(TRAILER_BYTES);
      TRAILER_MAGIC.copy(trailer, 0);
      trailer.writeBigUInt64BE(BigInt(json.length), TRAILER_MAGIC.length);
      await writeAll(fh, Buffer.concat([json, trailer]));
      await fh.sync();
      closed = true;
      await fh.close();
      // fails (ENOENT) when prune() removed the partial file meanwhile: nothing is published then
      await rename(partial, join(dir, `${id}.snap`));
      await syncDirectory(dir);
      return this.infoOf(footer);
    } catch (err) {
      await writing?.catch(() => undefined);
      if (!closed) await fh.close().catch(() => undefined);
      // best effort: a crash instead leaves the partial file to prune()
      await unlink(partial).catch(() => undefined);
      throw err;
    }
  }

  async list(tableId: string): Promise<SnapshotInfo[]> {
    const dir = this.tableDir(tableId);
    const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const found: SnapshotInfo[] = [];
    for (const name of names) {
      if (!PUBLISHED.test(name)) continue;
      const fh = await open(join(dir, name), 'r').catch(() => undefined);
      if (!fh) continue; // removed meanwhile
      try {
        const { footer } = await this.footerOf(fh, join(dir, name));
        if (footer.tableId === tableId && `${footer.id}.snap` === name) found.push(this.infoOf(footer));
      } catch (err) {
        // an unreadable file is not a snapshot (prune() removes it once it is old)
        if (!(err instanceof SnapshotCorruptError)) throw err;
      } finally {
        await fh.close();
      }
    }
    return found.sort(compareSnapshots);
  }

  async *read(info: SnapshotInfo): AsyncGenerator<Uint8Array> {
    const file = join(this.tableDir(info.tableId), `${info.id}.snap`);
    const fh = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw corrupt(file, 'missing');
      throw err;
    });
    try {
      const { footer, payloadBytes } = await this.footerOf(fh, file);
      if (footer.id !== info.id || footer.bytes !== info.bytes || footer.sha256 !== info.sha256) {
        throw corrupt(file, 'its footer is not the published snapshot');
      }
      if (payloadBytes !== footer.bytes) throw corrupt(file, `${payloadBytes} payload bytes, ${footer.bytes} published`);
      const chunks = footer.chunkSha256.length;
      if (chunks !== Math.ceil(footer.bytes / footer.chunkBytes))
        throw corrupt(file, `${chunks} chunk hashes for ${footer.bytes} bytes`);
      const verifier = new PayloadVerifier(info);
      const fetch = (n: number): Promise<Buffer> =>
        handled(readAt(fh, Math.min(footer.chunkBytes, footer.bytes - n * footer.chunkBytes), n * footer.chunkBytes));
      let next = chunks > 0 ? fetch(0) : undefined;
      for (let n = 0; n < chunks; n++) {
        const data = (await next) as Buffer;
        next = n + 1 < chunks ? fetch(n + 1) : undefined;
        verifier.chunk(n, data, footer.chunkSha256[n]);
        yield data;
      }
      await next;
      verifier.end();
    } finally {
      await fh.close();
    }
  }

  async prune(tableId: string, keep: number, staleMs = SNAPSHOT_STALE_MS): Promise<void> {
    const dir = this.tableDir(tableId);
    const published = await this.list(tableId);
    const kept = new Set(published.slice(0, Math.max(0, keep)).map((s) => `${s.id}.snap`));
    const listed = new Set(published.map((s) => `${s.id}.snap`));
    const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const now = Date.now();
    for (const name of names) {
      const path = join(dir, name);
      let remove = false;
      if (PUBLISHED.test(name)) {
        if (listed.has(name)) remove = !kept.has(name);
        else remove = await this.olderThan(path, now, staleMs); // unreadable
      } else if (PARTIAL.test(name)) {
        remove = await this.olderThan(path, now, staleMs);
      }
      if (remove) await rm(path, { force: true });
    }
  }

  async deleteTable(tableId: string): Promise<void> {
    await rm(this.tableDir(tableId), { recursive: true, force: true });
  }

  /** Not written to for `staleMs` (a partial file's mtime moves while its write goes on). */
  private async olderThan(path: string, now: number, staleMs: number): Promise<boolean> {
    const info = await stat(path).catch(() => undefined);
    return info !== undefined && now - info.mtimeMs >= staleMs;
  }

  private async footerOf(fh: FileHandle, file: string): Promise<{ footer: Footer; payloadBytes: number }> {
    const { size } = await fh.stat();
    if (size < TRAILER_BYTES) throw corrupt(file, 'shorter than its trailer');
    const trailer = await readAt(fh, TRAILER_BYTES, size - TRAILER_BYTES);
    if (trailer.length !== TRAILER_BYTES || !trailer.subarray(0, TRAILER_MAGIC.length).equals(TRAILER_MAGIC)) {
      throw corrupt(file, 'no trailer (truncated or not a snapshot)');
    }
    const footerBytes = Number(trailer.readBigUInt64BE(TRAILER_MAGIC.length));
    if (footerBytes > MAX_FOOTER_BYTES || footerBytes > size - TRAILER_BYTES) throw corrupt(file, 'bad footer length');
    const payloadBytes = size - TRAILER_BYTES - footerBytes;
    const json = await readAt(fh, footerBytes, payloadBytes);
    let footer: Footer;
    try {
      footer = JSON.parse(json.toString('utf8')) as Footer;
    } catch {
      throw corrupt(file, 'unreadable footer');
    }
    if (
      typeof footer !== 'object' ||
      footer === null ||
      typeof footer.id !== 'string' ||
      typeof footer.seq !== 'string' ||
      !/^\d+$/.test(footer.seq) ||
      !Number.isSafeInteger(footer.bytes) ||
      !Number.isSafeInteger(footer.chunkBytes) ||
      footer.chunkBytes <= 0 ||
      !Array.isArray(footer.chunkSha256) ||
      typeof footer.sha256 !== 'string'
    ) {
      throw corrupt(file, 'footer lacks its fields');
    }
    return { footer, payloadBytes };
  }

  private infoOf(footer: Footer): SnapshotInfo {
    return {
      id: footer.id,
      tableId: footer.tableId,
      seq: BigInt(footer.seq),
      formatVersion: footer.formatVersion,
      fingerprint: footer.fingerprint,
      bytes: footer.bytes,
      sha256: footer.sha256,
      createdAt: new Date(footer.createdAt),
      chunks: footer.chunkSha256.length,
    };
  }
}
