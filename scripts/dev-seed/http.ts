/**
 * The seeder's HTTP client: JSON (or a form for /oauth/token) to one service, with a bearer
 * credential, and errors that name the route and the contract's error code.
 */

export interface Reply<T> {
  readonly status: number;
  readonly body: T;
}

export class SeedHttpError extends Error {
  constructor(
    readonly route: string,
    readonly status: number,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(`${route} answered ${status}${code ? ` ${code}` : ''}: ${detail}`);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string } | string;
  error_description?: string;
}

export class SeedClient {
  constructor(
    readonly baseUrl: string,
    private readonly bearer: string,
  ) {}

  /** Another credential against the same service. */
  as(bearer: string): SeedClient {
    return new SeedClient(this.baseUrl, bearer);
  }

  /** A request whose answer must have one of `expect` (default: any 2xx). */
  async send<T>(
    method: string,
    path: string,
    options: { body?: unknown; form?: Record<string, string>; expect?: readonly number[] } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.bearer}`, accept: 'application/json' };
    let payload: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    const route = `${method} ${path}`;
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await res.text();
    const body: unknown = text === '' ? undefined : safeJson(text);
    const ok = options.expect ? options.expect.includes(res.status) : res.status >= 200 && res.status < 300;
    if (!ok) {
      const err = (body ?? {}) as ErrorBody;
      const code = typeof err.error === 'object' ? err.error.code : err.error;
      const message =
        (typeof err.error === 'object' ? err.error.message : err.error_description) ?? text.slice(0, 200) ?? 'no body';
      throw new SeedHttpError(route, res.status, code, message);
    }
    return { status: res.status, body: body as T };
  }

  post<T>(path: string, body?: unknown, expect?: readonly number[]): Promise<T> {
    return this.send<T>('POST', path, { body, ...(expect ? { expect } : {}) }).then((r) => r.body);
  }

  put<T>(path: string): Promise<T> {
    return this.send<T>('PUT', path).then((r) => r.body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PATCH', path, { body }).then((r) => r.body);
  }

  delete<T>(path: string): Promise<T> {
    return this.send<T>('DELETE', path).then((r) => r.body);
  }

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path).then((r) => r.body);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
