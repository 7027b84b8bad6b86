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
}) => RawHttpError | undefined;

/**
 * For a route whose error bodies another standard fixes (POST /oauth/token: RFC 6749 §5.2):
 * errors the platform renders itself there — Fastify's body parsing, size and media-type
 * errors, a validation error — go through `renderer` instead of becoming the platform body.
 * Errors the route throws as RawHttpError are sent as they are.
 */
export const RenderErrorsWith = (renderer: RouteErrorRenderer): MethodDecorator =>
  RouteConfig({ [ROUTE_ERROR_RENDERER]: renderer });

/** The renderer of the request's route, if it has one. */
export function routeErrorRenderer(request: FastifyRequest): RouteErrorRenderer | undefined {
  const config = request.routeOptions?.config as unknown as Record<string, unknown> | undefined;
  const renderer = config?.[ROUTE_ERROR_RENDERER];
  return typeof renderer === 'function' ? (renderer as RouteErrorRenderer) : undefined;
}
