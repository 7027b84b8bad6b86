import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isBlockedAddress } from '../security/url-guard';

/** What one POST to a receiver produced. `statusCode` null = no HTTP answer (timeout, refused, blocked). */
export interface SendResult {
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  /**
   * The failure's class for the attempt span's `error.type` (OpenTelemetry HTTP client
   * semantic conventions): the status code as a string for an HTTP error, else a short
   * class (`timeout`, `connection_refused`, …, `_OTHER`); null on success.
   */
  readonly errorType: string | null;
  readonly responseExcerpt: string | null;
  /** From a `Retry-After` header (seconds or HTTP date), in ms. */
  readonly retryAfterMs: number | null;
  /** The receiver answered with `webhook-delivery: abort`: stop retrying this delivery (contract, "Webhooks, more"). */
  readonly abort: boolean;
}

/**
 * Bounds of the keep-alive connection pool, per sender (one per worker process). Sockets
 * are pooled per origin (host and port), so all endpoints of one receiver share them.
 */
export interface SenderPoolOptions {
  /** Connections open at once to one origin; more requests to it wait for one (within their timeout). */
  readonly maxSocketsPerOrigin: number;
  /** Connections open at once to all origins together. */
  readonly maxTotalSockets: number;
  /** Idle connections kept per origin for reuse. */
  readonly maxFreeSockets: number;
  /** An idle connection is closed after this long (below the common 5 s server keep-alive, so the receiver rarely closes one under us). */
  readonly idleTimeoutMs: number;
}

export const DEFAULT_POOL: SenderPoolOptions = {
  maxSocketsPerOrigin: 32,
  maxTotalSockets: 512,
  maxFreeSockets: 32,
  idleTimeoutMs: 4_000,
};

/** Whether a `webhook-delivery` response header asks to stop retrying (case-insensitive `abort`). */
export function asksToAbort(value: string | string[] | undefined): boolean {
  const values = typeof value === 'string' ? [value] : (value ?? []);
  return values.some((v) => v.trim().toLowerCase() === 'abort');
}

export interface SendRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly allowPrivateUrls: boolean;
}

/** Socket error codes (node's `err.code`) and the `error.type` each is reported as. */
const ERROR_TYPES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'name_not_resolved',
  EAI_AGAIN: 'name_not_resolved',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'host_unreachable',
  EWEBHOOKBLOCKED: 'blocked',
};

/** A low-cardinality class of a socket error (`_OTHER` for any code not listed above, a TLS failure among them). */
export function socketErrorType(err: unknown): string {
  const code = err !== null && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return (typeof code === 'string' ? ERROR_TYPES[code] : undefined) ?? '_OTHER';
}

/** Bytes of the response body kept in the attempt log. */
export const EXCERPT_CHARS = 512;
const MAX_READ_BYTES = 16 * 1024;

export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * POSTs a webhook with node's http(s) client: no redirects are followed (a 3xx is a
 * failure), the whole exchange — connect, headers and body — must finish within
 * `timeoutMs`, and unless private URLs are allowed every address the socket connects to
 * is checked (guardedLookup), so DNS changes after registration cannot reach internal hosts.
 */
export class HttpSender {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;

  constructor(pool: SenderPoolOptions = DEFAULT_POOL) {
    // Keep-alive: a connection per request costs a TCP (and TLS) handshake on both sides;
    // bounded so that a backlog to one receiver cannot open unbounded sockets, and LIFO so
    // that connections beyond the steady need go idle and are closed.
    const options = {
      keepAlive: true,
      maxSockets: pool.maxSocketsPerOrigin,
      maxTotalSockets: pool.maxTotalSockets,
      maxFreeSockets: pool.maxFreeSockets,
      timeout: pool.idleTimeoutMs,
      scheduling: 'lifo' as const,
    };
    this.httpAgent = new HttpAgent(options);
    this.httpsAgent = new HttpsAgent(options);
  }

  send(req: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const fail = (error: string, errorType: string): SendResult => ({
      statusCode: null,
      durationMs: elapsed(),
      error,
      errorType,
      responseExcerpt: null,
      retryAfterMs: null,
      abort: false,
    });

    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return Promise.resolve(fail('invalid url', 'invalid_url'));
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!req.allowPrivateUrls && isIP(host) !== 0 && isBlockedAddress(host)) {
      return Promise.resolve(fail(`blocked: ${host} is a private, loopback, link-local or metadata address`, 'blocked'));
    }
    const https = url.protocol === 'https:';
    const doRequest = https ? httpsRequest : httpRequest;

    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let timedOut = false;
      const failWith = (err: Error): SendResult => fail(err.message, timedOut ? 'timeout' : socketErrorType(err));
      const finish = (result: SendResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const outgoing = doRequest(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
          agent: https ? this.httpsAgent : this.httpAgent,
          ...(req.allowPrivateUrls ? {} : { lookup: guardedLookup }),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            if (read < MAX_READ_BYTES) chunks.push(chunk);
            read += chunk.length;
          });
          res.on('error', (err: Error) => finish(failWith(err)));
          res.on('close', () =>
            finish(fail('connection closed before the response ended', timedOut ? 'timeout' : 'connection_reset')),
          );
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            const retryAfter: string | string[] | undefined = res.headers['retry-after'];
            finish({
              statusCode: status,
              durationMs: elapsed(),
              error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
              errorType: status >= 200 && status < 300 ? null : String(status),
              responseExcerpt: text === '' ? null : text.slice(0, EXCERPT_CHARS),
              retryAfterMs: parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : retryAfter?.[0], Date.now()),
              abort: asksToAbort(res.headers['webhook-delivery']),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        outgoing.destroy(new Error(`timeout: no complete answer within ${req.timeoutMs} ms`));
      }, req.timeoutMs);
      outgoing.on('error', (err: Error) => finish(failWith(err)));
      outgoing.end(req.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
