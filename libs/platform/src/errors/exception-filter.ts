import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError } from './domain-error';
import { errorBody, type ErrorBody } from './error-body';
import { PLATFORM_ERRORS, type PlatformErrorCode } from './error-catalog';
import { RawHttpError } from './raw-http-error';
import { routeErrorRenderer } from './route-error-renderer';
import { isDependencyUnavailable } from './unavailable';

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorBody | Readonly<Record<string, unknown>>;
}

/** Errors raised by Fastify itself before a route runs (body parsing, size limits). */
const FASTIFY_CODES: Readonly<Record<string, { code: PlatformErrorCode; message: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_json',
    message: "The request body is empty but Content-Type is 'application/json'.",
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'body_too_large', message: 'The request body is larger than this service accepts.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'This Content-Type is not supported: send the body as JSON with Content-Type: application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'body_invalid', message: 'Content-Length does not match the body.' },
  // Router errors (bootstrap.ts frameworkErrors): no route ran, so no id can exist.
  FST_ERR_BAD_URL: { code: 'parameter_invalid', message: 'The request URL is not valid (malformed percent-encoding).' },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'resource_missing',
    message: 'No such resource: a path parameter is longer than 100 characters.',
  },
};

const BY_STATUS: Readonly<Record<number, PlatformErrorCode>> = {
  400: 'parameter_invalid',
  401: 'authentication_required',
  403: 'permission_denied',
  404: 'resource_missing',
  409: 'resource_already_exists',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  503: 'service_unavailable',
};

function fastifyErrorCode(exception: unknown): string | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const code = (exception as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('FST_')) return code;
  // JSON.parse failures surface as a SyntaxError with statusCode 400.
  if (exception instanceof SyntaxError && (exception as { statusCode?: unknown }).statusCode === 400) {
    return 'FST_ERR_CTP_INVALID_JSON_BODY';
  }
  return undefined;
}

/**
 * Turns anything thrown while handling a request into the platform contract's error body.
 * Unknown errors become a 500 with a generic message; the details go to the log only.
 */
export function renderError(exception: unknown, requestId: string, method: string, url: string, logger: Logger): RenderedError {
  if (exception instanceof RawHttpError) {
    return { status: exception.status, headers: exception.headers, body: exception.body };
  }
  // A DomainError whose code nobody registered is a bug: it falls through to the 500 below.
  if (isDomainError(exception) && exception.registered) {
    const { status, type } = exception.spec;
    // an outage or a drain (503) is expected operation, not a bug
    if (status >= 500 && exception.code !== 'service_unavailable')
      logger.error({ err: exception, reqId: requestId }, exception.message);
    else if (status >= 500) logger.warn({ reqId: requestId }, exception.message);
    return {
      status,
      headers: exception.headers,
      body: errorBody(type, exception.code, exception.message, requestId, exception.param, exception.details),
    };
  }

  // Nest hands Fastify's own errors (body parsing, limits) over as HttpException with the
  // Fastify error as `cause`.
  const fastifyError = exception instanceof HttpException ? exception.cause : exception;
  const mapped = FASTIFY_CODES[fastifyErrorCode(fastifyError) ?? ''];
  if (mapped !== undefined) {
    const spec = PLATFORM_ERRORS[mapped.code];
    return { status: spec.status, headers: {}, body: errorBody(spec.type, mapped.code, mapped.message, requestId) };
  }

  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404 && exception.message.startsWith('Cannot ')) {
      const spec = PLATFORM_ERRORS.route_not_found;
      const message = `Unrecognized request URL (${method}: ${url.split('?')[0]}).`;
      return { status: 404, headers: {}, body: errorBody(spec.type, 'route_not_found', message, requestId) };
    }
    const code = BY_STATUS[status];
    if (code !== undefined && status < 500) {
      const spec = PLATFORM_ERRORS[code];
      return { status, headers: {}, body: errorBody(spec.type, code, exception.message, requestId) };
    }
  }

  // A database or Redis that cannot be reached is an outage, not a bug: 503, retry later.
  if (isDependencyUnavailable(exception)) {
    const message = exception instanceof Error ? exception.message : String(exception);
    // (Nest's Logger passes only the object on to pino: the line's text goes in `msg`)
    logger.warn({ reqId: requestId, msg: `Dependency unavailable on ${method} ${url.split('?')[0]}: ${message}` });
    const spec = PLATFORM_ERRORS.service_unavailable;
    return {
      status: spec.status,
      headers: { 'Retry-After': '5' },
      body: errorBody(
        spec.type,
        'service_unavailable',
        'A dependency of this service is unavailable right now. Retry later (with the same Idempotency-Key for a write).',
        requestId,
      ),
    };
  }

  logger.error({ err: exception, reqId: requestId }, `Unhandled error on ${method} ${url.split('?')[0]}`);
  const spec = PLATFORM_ERRORS.internal_error;
  return {
    status: 500,
    headers: {},
    body: errorBody(
      spec.type,
      'internal_error',
      'An unexpected error occurred. Quote the request_id when reporting it.',
      requestId,
    ),
  };
}

export function sendError(reply: FastifyReply, rendered: RenderedError): void {
  void reply
    .status(rendered.status)
    .headers(rendered.headers)
    .header('content-type', 'application/json; charset=utf-8')
    .send(rendered.body);
}

/** The one global filter: every exception from a route becomes the contract's error body. */
@Catch()
export class PlatformExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    sendError(reply, forRoute(request, renderError(exception, request.id, request.method, request.url, this.logger)));
  }
}

/** A platform error body re-rendered by the route's own renderer (see RenderErrorsWith), if it has one. */
export function forRoute(request: FastifyRequest, rendered: RenderedError): RenderedError {
  const renderer = routeErrorRenderer(request);
  const error = (rendered.body as { error?: unknown }).error;
  if (!renderer || typeof error !== 'object' || error === null) return rendered;
  const { code, message, type, param, request_id: _requestId, ...details } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return rendered;
  const raw = renderer({
    status: rendered.status,
    code,
    message,
    ...(typeof type === 'string' ? { type } : {}),
    ...(typeof param === 'string' ? { param } : {}),
    details,
  });
  return raw === undefined ? rendered : { status: raw.status, headers: { ...rendered.headers, ...raw.headers }, body: raw.body };
}
