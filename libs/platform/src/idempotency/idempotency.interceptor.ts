import {
  applyDecorators,
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  HttpStatus,
  Inject,
  Injectable,
  type NestInterceptor,
  Optional,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { RawHttpError } from '../errors/raw-http-error';
import { IDEMPOTENCY_SEALER, IdempotentRequest, type ResponseSealer } from './idempotency-context';
import { IdempotencyService } from './idempotency.service';
import { toJson } from '../database/transaction-runner';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller's tenant and mode (set by the auth guard): the scope of its Idempotency-Keys. */
    idempotencyScope?: string;
    /** The claim of this request's Idempotency-Key (set by IdempotencyInterceptor). */
    idempotency?: IdempotentRequest;
  }
}

const SEALED = 'idempotency:sealed';

/** A stored response replayed for a retried request (`Idempotent-Replayed: true`). */
export class ReplayedResponse extends RawHttpError {
  constructor(status: number, body: unknown) {
    super(status, (body ?? {}) as Record<string, unknown>, { 'Idempotent-Replayed': 'true' });
    this.name = 'ReplayedResponse';
  }
}

/**
 * Honours `Idempotency-Key` on a POST route (IdempotencyService has the rules). The
 * controller takes the claim with `@IdempotencyOf()` and hands it to its service, which
 * registers `claim.completion()` on the transaction of the effect, so the response is stored
 * with it; otherwise it is stored right after the handler returns. A request that fails without a
 * stored response releases its claim: nothing committed, so the retry runs again safely.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
    @Optional() @Inject(IDEMPOTENCY_SEALER) private readonly sealer?: ResponseSealer,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || request.method !== 'POST') return next.handle();
    return from(this.around(context, request, key, next));
  }

  private async around(context: ExecutionContext, request: FastifyRequest, key: string, next: CallHandler): Promise<unknown> {
    const scope = request.idempotencyScope;
    if (scope === undefined) throw new Error('@Idempotent() needs an authenticated route (no idempotencyScope on the request)');
    const sealed = this.reflector.getAllAndOverride<boolean | undefined>(SEALED, [context.getHandler(), context.getClass()]);
    if (sealed && !this.sealer)
      throw new Error('@Idempotent({ sealed: true }) needs an IDEMPOTENCY_SEALER provider in its module');
    const sealer = sealed ? this.sealer : undefined;
    const path = request.url.split('?')[0] ?? request.url;
    const outcome = await this.idempotency.claim(scope, key, request.method, path, request.body, sealer);
    if (outcome.kind === 'replay') throw new ReplayedResponse(outcome.status, outcome.body);

    const successStatus =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const claim = new IdempotentRequest(scope, outcome.id, successStatus, (response) =>
      this.idempotency.completion(scope, outcome.id, response, sealer),
    );
    request.idempotency = claim;
    try {
      const result: unknown = await lastValueFrom(next.handle() as Observable<unknown>, { defaultValue: undefined });
      if (!claim.completed) {
        await this.idempotency.complete(scope, claim.id, { status: successStatus, body: toJson(result) }, sealer);
        claim.completed = true;
      }
      return result;
    } catch (err) {
      if (!claim.completed) await this.idempotency.release(scope, claim.id).catch(() => undefined);
      throw err;
    }
  }
}

export interface IdempotentOptions {
  /**
   * The answer holds a secret (a new API key): it is stored only encrypted, by the
   * IDEMPOTENCY_SEALER the controller's module provides, and decrypted for a replay.
   */
  readonly sealed?: boolean;
}

/**
 * Marks POST routes (a route, or every POST of a controller) as idempotent under
 * `Idempotency-Key` (scoped by the caller's tenant and mode) and documents the header.
 */
export function Idempotent(options: IdempotentOptions = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(SEALED, options.sealed === true),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 characters, unique per logical write; a retry with the same key and body, with any credential of the same tenant and mode, replays the first response.',
    }),
  );
}

/**
 * The request's Idempotency-Key claim (an `IdempotentRequest`), or undefined when the
 * request has no key: a controller parameter, handed to the service for its transaction.
 */
export const IdempotencyOf = createParamDecorator(
  (_: unknown, context: ExecutionContext): IdempotentRequest | undefined =>
    context.switchToHttp().getRequest<FastifyRequest>().idempotency,
);
