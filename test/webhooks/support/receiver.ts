import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../support/wait';

export interface ReceivedRequest {
  readonly n: number;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** When the request's body had arrived (ms since the epoch). */
  readonly at: number;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Answer only after this many ms. */
  readonly delayMs?: number;
  /** Never answer (until the receiver closes). */
  readonly hang?: boolean;
}

export type Handler = (req: ReceivedRequest) => Reply;

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  handler: Handler = () => ({ status: 200, body: 'ok' });
  private readonly server: Server;
  private readonly pending = new Set<ServerResponse>();

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = {
          n: this.requests.length + 1,
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(received);
        const reply = this.handler(received);
        if (reply.hang) {
          this.pending.add(res);
          return;
        }
        const send = (): void => {
          if (res.destroyed) return;
          res.writeHead(reply.status, reply.headers ?? {});
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
  }

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async close(): Promise<void> {
    for (const res of this.pending) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `fn` every 50 ms until it returns a value other than undefined/false (errors count as "not yet"), or fails after `timeoutMs`. */
export function eventually<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  return waitFor(what, fn, { timeoutMs, everyMs: 50, retryErrors: true });
}
