import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './domain-error';
import { errorBody, type ErrorBody } from './error-body';
import type { ErrorCode } from './error-catalog';
import { ERROR_CATALOG } from './error-catalog';
import { RawHttpError } from './raw-http-error';

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ErrorBody | Readonly<Record<string, unknown>>;
}

/** Errors raised by Fastify itself before a route runs (body parsing, size limits). */
const FASTIFY_CODES: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_json',
    message: "The request body is empty but Content-Type is 'application/json'.",
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'body_too_large', message: 'The request body is larger than this service accepts.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'Unsupported Content-Type; send application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'body_invalid', message: 'Content-Length does not match the body.' },
};

const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
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
  if (exception instanceof DomainError) {
    const { status, type } = exception.spec;
    if (status >= 500) logger.error({ err: exception, reqId: requestId }, exception.message);
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
    const spec = ERROR_CATALOG[mapped.code];
    return { status: spec.status, headers: {}, body: errorBody(spec.type, mapped.code, mapped.message, requestId) };
  }

  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404 && exception.message.startsWith('Cannot ')) {
      const spec = ERROR_CATALOG.route_not_found;
      const message = `Unrecognized request URL (${method}: ${url.split('?')[0]}).`;
      return { status: 404, headers: {}, body: errorBody(spec.type, 'route_not_found', message, requestId) };
    }
    const code = BY_STATUS[status];
    if (code !== undefined && status < 500) {
      const spec = ERROR_CATALOG[code];
      return { status, headers: {}, body: errorBody(spec.type, code, exception.message, requestId) };
    }
  }

  logger.error({ err: exception, reqId: requestId }, `Unhandled error on ${method} ${url.split('?')[0]}`);
  const spec = ERROR_CATALOG.internal_error;
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
    sendError(reply, renderError(exception, request.id, request.method, request.url, this.logger));
  }
}
