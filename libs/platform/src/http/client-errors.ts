import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import { errorBody } from '../errors/error-body';
import { PLATFORM_ERRORS, type PlatformErrorCode } from '../errors/error-catalog';
import { newRequestId } from './request-context';

const logger = new Logger('Errors');

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Writes a complete HTTP/1.1 error response in the contract's body straight to a socket,
 * then closes it: for requests Node's HTTP parser refuses before Fastify sees them (no
 * route, no reply object, no hook ran), so they still carry Request-Id and request_id.
 */
function answerOnSocket(socket: Duplex, status: number, code: PlatformErrorCode, message: string, cause?: string): void {
  const requestId = newRequestId();
  const body = JSON.stringify(errorBody(PLATFORM_ERRORS[code].type, code, message, requestId));
  logger.log({ reqId: requestId, msg: `${status} ${code} before routing: ${message}`, ...(cause ? { cause } : {}) });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
        `Request-Id: ${requestId}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

interface ClientError extends Error {
  readonly code?: string;
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser rejects (headers over
 * maxHeaderSize → 431, a method it does not know, a malformed request line, header or
 * framing → 400, a request not received within requestTimeout → 408) gets the contract's
 * error body instead of Fastify's `{"error","message","statusCode"}`.
 */
export function clientErrorHandler(error: ClientError, socket: Duplex): void {
  // the peer is gone: nothing to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // a response already started on this connection (pipelining): do not write into it
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    answerOnSocket(socket, 431, 'headers_too_large', 'The request headers are larger than this service accepts.');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answerOnSocket(socket, 408, 'request_timeout', 'The request was not received completely in time.');
  } else if (error.code === 'HPE_INVALID_METHOD') {
    answerOnSocket(socket, 400, 'request_malformed', 'Unknown HTTP method.', error.code);
  } else {
    const message = 'The request is not valid HTTP/1.1 (request line, a header or the body framing).';
    answerOnSocket(socket, 400, 'request_malformed', message, error.code ?? error.message);
  }
}

/** `CONNECT` (a proxy tunnel): Node hands it to a 'connect' listener only; no route serves it. */
export function connectHandler(request: IncomingMessage, socket: Duplex): void {
  answerOnSocket(socket, 404, 'route_not_found', `Unrecognized request URL (CONNECT: ${request.url ?? ''}).`);
}
