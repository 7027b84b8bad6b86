/** An error answer of the API (the contract's body: `{error: {type, code, message, param?, request_id}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; param?: string; request_id?: string };
}

let csrfToken = '';
let consoleMode: 'test' | 'live' = 'test';

/** Set once the session is read: every state-changing request carries it (X-CSRF-Token). */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** The payments dashboard's mode (sent as Console-Mode; the other services ignore it). */
export function setConsoleMode(mode: 'test' | 'live'): void {
  consoleMode = mode;
}
export function getConsoleMode(): 'test' | 'live' {
  return consoleMode;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** `path?query` without the empty values. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * Calls the service's own public routes from the console, with the session cookie (same
 * origin only). Non-2xx answers throw ApiError with the API's code and message, which the
 * pages show as they are.
 */
export async function api<T>(method: string, path: string, body?: unknown, init: { idempotent?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'console-mode': consoleMode };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') {
    headers['x-csrf-token'] = csrfToken;
    if (method === 'POST' && init.idempotent !== false) headers['idempotency-key'] = crypto.randomUUID();
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (!res.ok) {
    const error = (json as ErrorBody | undefined)?.error;
    throw new ApiError(
      res.status,
      error?.code ?? 'http_error',
      error?.message ?? `The request failed with status ${res.status}.`,
      error?.param,
      error?.request_id ?? res.headers.get('request-id') ?? undefined,
    );
  }
  return json as T;
}

export const get = <T>(path: string, query?: Query): Promise<T> => api<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body?: unknown): Promise<T> => api<T>('POST', path, body ?? {});
export const patch = <T>(path: string, body: unknown): Promise<T> => api<T>('PATCH', path, body);
export const del = <T>(path: string, body?: unknown): Promise<T> => api<T>('DELETE', path, body);

/** A Stripe-style list page. */
export interface ListPage<T> {
  object?: 'list';
  data: T[];
  has_more: boolean;
}

/** What GET /console/session answers. */
export interface ConsoleSessionInfo {
  object: 'console_session';
  service: 'offers-api' | 'vector-api' | 'payments-api';
  tenant: { id: string; name: string };
  csrf_token: string;
  idle_timeout_seconds: number;
}
