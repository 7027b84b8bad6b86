import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { RawHttpError } from './raw-http-error';

/** Fastify route `config` key under which `RenderErrorsWith` stores a route's renderer. */
export const ROUTE_ERROR_RENDERER = 'platformErrorRenderer';

/** A platform error (code, message, status) as the route's own standard wants it, or undefined to keep it. */
export type RouteErrorRenderer = (error: {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  /** The platform body's `type` (invalid_request_error, card_error, …). */
  readonly type?: string;
  /** The parameter the error is about, when the platform body names one. */
  readonly param?: string;
  /** The platform body's other fields (a decline_code, a payment_id, …), request_id excluded. */
  readonly details?: Readonly<Record<string, unknown>>;
}) => RawHttpError | undefined;

/**
 * For a route whose error bodies another standard fixes (POST /oauth/token: RFC 6749 §5.2):
 * errors the platform renders itself there — Fastify's body parsing, size and media-type
 * errors, a validation error — go through `renderer` instead of becoming the platform body.
 * Errors the route throws as RawHttpError are sent as they are.
 */
export const RenderErrorsWith = (renderer: RouteErrorRenderer): MethodDecorator =>
  RouteConfig({ [ROUTE_ERROR_RENDERER]: renderer });

/** The renderers of requests no route took, per path prefix, per Fastify instance (see renderErrorsUnder). */
const UNDER = new WeakMap<object, Array<readonly [string, RouteErrorRenderer]>>();

/**
 * For a family of routes under `prefix` whose errors another standard fixes (RenderErrorsWith
 * on each): the errors of requests under it that no route took — a malformed percent-encoding
 * in the path, an unknown path or method — go through `renderer` too, so a client of that
 * standard never meets the platform's body. `server` is the app's Fastify instance.
 */
export function renderErrorsUnder(server: object, prefix: string, renderer: RouteErrorRenderer): void {
  UNDER.set(server, [...(UNDER.get(server) ?? []), [prefix, renderer] as const]);
}

/** The renderer of the request's route, if it has one, else of the prefix its path is under (renderErrorsUnder). */
export function routeErrorRenderer(request: FastifyRequest): RouteErrorRenderer | undefined {
  const config = request.routeOptions?.config as unknown as Record<string, unknown> | undefined;
  const renderer = config?.[ROUTE_ERROR_RENDERER];
  if (typeof renderer === 'function') return renderer as RouteErrorRenderer;
  // a plugin's instance inherits from its parent's (Fastify's encapsulation): look up the chain
  let under: Array<readonly [string, RouteErrorRenderer]> | undefined;
  for (let s: object | null = request.server; s !== null && under === undefined; s = Object.getPrototypeOf(s) as object | null)
    under = UNDER.get(s);
  if (under === undefined) return undefined;
  const path = request.url.split('?')[0] ?? '';
  return under.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1];
}
