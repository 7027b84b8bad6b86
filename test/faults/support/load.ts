/**
 * Concurrent load over a fixed number of keep-alive connections (node:http Agent), with
 * each request's fate recorded precisely enough to tell "the server dropped a request it
 * had accepted" apart from "the connection was refused / closed before the request was
 * taken" (the latter is fine during a shutdown; the former never is).
 */
import { Agent, request } from 'node:http';

export type LoadOutcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly json: unknown;
      readonly text: string;
    }
  | { readonly kind: 'timeout' }
  | {
      readonly kind: 'connection';
      readonly code: string;
      /** The request went out on a socket that had already carried a response (keep-alive reuse). */
      readonly reusedSocket: boolean;
      /** Part of the response had arrived when the connection failed: an accepted request was cut. */
      readonly partialResponse: boolean;
    };

export interface LoadClient {
  post(path: string, body: unknown, headers: Record<string, string>, timeoutMs?: number): Promise<LoadOutcome>;
  close(): void;
}

export function loadClient(baseUrl: string, connections: number): LoadClient {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const url = new URL(baseUrl);
  return {
    close: () => agent.destroy(),
    post: (path, body, headers, timeoutMs = 15_000) =>
      new Promise<LoadOutcome>((resolve) => {
        const payload = JSON.stringify(body);
        let settled = false;
        let partial = false;
        const finish = (o: LoadOutcome): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(o);
        };
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path,
            method: 'POST',
            agent,
            headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          },
          (res) => {
            partial = true;
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', () => undefined);
            res.on('end', () => {
              if (!res.complete) return; // 'close'/'error' on req reports it
              const text = Buffer.concat(chunks).toString('utf8');
              let json: unknown;
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
              const flat: Record<string, string> = {};
              for (const [k, v] of Object.entries(res.headers))
                if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
              finish({ kind: 'response', status: res.statusCode ?? 0, headers: flat, json, text });
            });
            res.on('aborted', () =>
              finish({ kind: 'connection', code: 'RESPONSE_ABORTED', reusedSocket: req.reusedSocket, partialResponse: true }),
            );
          },
        );
        const timer = setTimeout(() => {
          finish({ kind: 'timeout' });
          req.destroy();
        }, timeoutMs);
        req.on('error', (err: NodeJS.ErrnoException) =>
          finish({ kind: 'connection', code: err.code ?? err.message, reusedSocket: req.reusedSocket, partialResponse: partial }),
        );
        req.end(payload);
      }),
  };
}
