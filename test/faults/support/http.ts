/**
 * A real HTTP client (Node's fetch / undici) with a client-side timeout, which reports
 * what happened instead of throwing: a complete response, a timeout (the service hung),
 * or a connection failure (refused, reset, closed mid-request) with its error code.
 */
export type Outcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers: Headers;
      readonly text: string;
      readonly json: unknown;
    }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'connection'; readonly code: string; readonly message: string };

export interface CallOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Client-side limit: no complete answer within it is a `timeout` outcome (default 10 s). */
  readonly timeoutMs?: number;
}

function errorCode(err: unknown): { code: string; message: string } {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code, message: e.message };
    e = e.cause;
  }
  return { code: 'UNKNOWN', message: err instanceof Error ? err.message : String(err) };
}

export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Outcome> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { kind: 'response', status: res.status, headers: res.headers, text, json };
  } catch (err) {
    if (err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError')) return { kind: 'timeout' };
    return { kind: 'connection', ...errorCode(err) };
  }
}

export type Response = Extract<Outcome, { kind: 'response' }>;

/** The response, or a thrown error describing the timeout / connection failure. */
export async function must(outcome: Promise<Outcome> | Outcome, status?: number): Promise<Response> {
  const o = await outcome;
  if (o.kind !== 'response') throw new Error(`expected a response, got ${o.kind}${o.kind === 'connection' ? ` ${o.code}` : ''}`);
  if (status !== undefined && o.status !== status) throw new Error(`expected ${status}, got ${o.status}: ${o.text}`);
  return o;
}

export interface ContractError {
  readonly error: { type: string; code: string; message: string; request_id: string; [k: string]: unknown };
}

/**
 * Why `o` is not a non-2xx response in the platform contract's error body
 * (`{error: {type, code, message, request_id}}` with the Request-Id header repeated),
 * or undefined when it is.
 */
export function contractViolation(o: Response): string | undefined {
  const body = o.json as Partial<ContractError> | undefined;
  const e = body?.error;
  if (typeof e !== 'object' || e === null) return `no error object in ${o.status} body: ${o.text.slice(0, 200)}`;
  for (const field of ['type', 'code', 'message', 'request_id'] as const) {
    if (typeof e[field] !== 'string' || e[field] === '') return `error.${field} missing in ${o.text.slice(0, 200)}`;
  }
  const requestId = o.headers.get('request-id');
  if (requestId !== e.request_id) return `Request-Id header ${requestId} differs from error.request_id ${e.request_id}`;
  if (o.status >= 500 && e.type !== 'api_error') return `a ${o.status} must be api_error, got ${e.type}`;
  return undefined;
}

/** Counts outcomes by a short label ("201", "503 service_unavailable", "timeout", "connection ECONNREFUSED"). */
export function label(o: Outcome): string {
  if (o.kind === 'timeout') return 'timeout';
  if (o.kind === 'connection') return `connection ${o.code}`;
  if (o.status < 400) return String(o.status);
  const code = (o.json as Partial<ContractError> | undefined)?.error?.code;
  return `${o.status} ${code ?? '(no contract body)'}`;
}

export function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[label(o)] = (counts[label(o)] ?? 0) + 1;
  return counts;
}
