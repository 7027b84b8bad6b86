/**
 * A TCP proxy in front of PostgreSQL that counts the statements clients execute, by text,
 * from the wire protocol (v3): simple `Query` messages, and `Execute` of a portal bound to
 * a statement from `Parse` (unnamed or named). It never changes a byte; the profile run puts
 * it between the services and their database to see the SQL one request issues.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface SqlTrace {
  readonly url: string;
  reset(): void;
  /** Statement text (whitespace collapsed) → executions since the last reset. */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

function cString(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

export async function startSqlTrace(targetUrl: string): Promise<SqlTrace> {
  const target = new URL(targetUrl);
  const counts = new Map<string, number>();
  const count = (sql: string): void => {
    const text = sql.replace(/\s+/g, ' ').trim();
    counts.set(text, (counts.get(text) ?? 0) + 1);
  };
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const statements = new Map<string, string>();
    const portals = new Map<string, string>();
    let pending: Buffer = Buffer.alloc(0);
    let started = false;

    const parse = (): void => {
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const len = pending.readInt32BE(0);
          if (pending.length < len) return;
          const code = pending.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true;
          pending = pending.subarray(len);
          continue;
        }
        if (pending.length < 5) return;
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) return;
        const type = String.fromCharCode(pending[0] ?? 0);
        const body = pending.subarray(5, len + 1);
        if (type === 'Q') {
          count(cString(body, 0)[0]);
        } else if (type === 'P') {
          const [name, next] = cString(body, 0);
          statements.set(name, cString(body, next)[0]);
        } else if (type === 'B') {
          const [portal, next] = cString(body, 0);
          portals.set(portal, statements.get(cString(body, next)[0]) ?? '(unknown statement)');
        } else if (type === 'E') {
          count(portals.get(cString(body, 0)[0]) ?? '(unknown portal)');
        }
        pending = pending.subarray(len + 1);
      }
    };

    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      parse();
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = new URL(targetUrl);
  url.host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: url.toString(),
    reset: () => counts.clear(),
    counts: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
