/**
 * A TCP proxy in front of PostgreSQL that counts the statements clients execute, by text,
 * from the wire protocol (v3): simple `Query` messages, and `Execute` of a portal bound to
 * a statement from `Parse` (unnamed or named). It never changes a byte; the profile run puts
 * it between the services and their database to see the SQL one request issues.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** One statement executed by a client, with its parameters as sent (text format; null for SQL NULL). */
export interface Execution {
  /** Which client connection (numbered in order of connecting). */
  readonly connection: number;
  /** When the proxy saw the Execute (or Query), in ms of performance.now(). */
  readonly at: number;
  readonly text: string;
  readonly params: ReadonlyArray<string | null>;
}

export interface SqlTrace {
  readonly url: string;
  reset(): void;
  /** Statement text (whitespace collapsed) → executions since the last reset. */
  counts(): Map<string, number>;
  /** Every execution since the last reset, in order (the statement text exactly as sent). */
  executions(): Execution[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

function cString(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

/** The parameter values of a Bind message body from `at` (after the portal and statement names). */
function bindParams(body: Buffer, at: number): Array<string | null> {
  let pos = at;
  const formats = body.readInt16BE(pos);
  pos += 2 + 2 * formats;
  const count = body.readInt16BE(pos);
  pos += 2;
  const params: Array<string | null> = [];
  for (let i = 0; i < count; i++) {
    const len = body.readInt32BE(pos);
    pos += 4;
    if (len < 0) {
      params.push(null);
      continue;
    }
    params.push(body.toString('utf8', pos, pos + len));
    pos += len;
  }
  return params;
}

export async function startSqlTrace(targetUrl: string): Promise<SqlTrace> {
  const target = new URL(targetUrl);
  const counts = new Map<string, number>();
  let log: Execution[] = [];
  let connections = 0;
  const count = (connection: number, sql: string, params: ReadonlyArray<string | null>): void => {
    const text = sql.replace(/\s+/g, ' ').trim();
    counts.set(text, (counts.get(text) ?? 0) + 1);
    log.push({ connection, at: performance.now(), text: sql, params });
  };
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const connection = ++connections;
    const statements = new Map<string, string>();
    const portals = new Map<string, { text: string; params: Array<string | null> }>();
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
          count(connection, cString(body, 0)[0], []);
        } else if (type === 'P') {
          const [name, next] = cString(body, 0);
          statements.set(name, cString(body, next)[0]);
        } else if (type === 'B') {
          const [portal, next] = cString(body, 0);
          const [statement, at] = cString(body, next);
          portals.set(portal, { text: statements.get(statement) ?? '(unknown statement)', params: bindParams(body, at) });
        } else if (type === 'E') {
          const bound = portals.get(cString(body, 0)[0]);
          count(connection, bound?.text ?? '(unknown portal)', bound?.params ?? []);
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
    reset: () => {
      counts.clear();
      log = [];
    },
    counts: () => new Map(counts),
    executions: () => [...log],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
