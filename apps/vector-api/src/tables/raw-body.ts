import { DomainError, PlatformValidationPipe } from '@app/platform';
import { createParamDecorator, type ExecutionContext, type PipeTransform, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The raw request body, without the global validation pipe (which does not process custom
 * parameter decorators): for the body pipes below, which check what must be checked before
 * the validation pipe walks the body.
 */
export const RawBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<FastifyRequest>().body,
);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Refuses an object with more keys than its DTO has fields, naming the first unknown one,
 * before the validation pipe copies it: class-transformer's copy of an object costs
 * O(keys²) (it de-duplicates keys with indexOf), so 50,000 unknown keys held the event
 * loop for 1.3 s before the pipe refused the first. An object with at most as many keys as
 * fields is left to the pipe, which answers as for any other body.
 */
export function refuseExtraKeys(value: unknown, fields: ReadonlySet<string>, path = ''): void {
  if (!isPlainObject(value)) return;
  const keys = Object.keys(value);
  if (keys.length <= fields.size) return;
  const unknown = keys.find((k) => !fields.has(k)) as string;
  const param = path === '' ? unknown : `${path}.${unknown}`;
  throw new DomainError('parameter_unknown', `Received unknown parameter: ${param}`, { param });
}

/**
 * The platform's validation of a flat body (its fields hold no objects), after
 * refuseExtraKeys. Use with `@RawBody(new KnownFieldsPipe(Dto, [...fields]))` and
 * `@ApiBody({ type: Dto })`.
 */
export interface KnownFieldsOptions {
  /** A request without a body is taken as `{}` (every field of the DTO is optional). */
  readonly optional?: boolean;
  /** More checks of the object before the pipe walks it (e.g. a filter's size limits). */
  readonly check?: (body: Record<string, unknown>) => void;
}

export class KnownFieldsPipe<T extends object> implements PipeTransform<unknown, Promise<T>> {
  private readonly inner = new PlatformValidationPipe();
  private readonly fields: ReadonlySet<string>;

  constructor(
    private readonly metatype: Type<T>,
    fields: ReadonlyArray<keyof T & string>,
    private readonly options: KnownFieldsOptions = {},
  ) {
    this.fields = new Set(fields);
  }

  async transform(raw: unknown): Promise<T> {
    const value = raw === undefined && this.options.optional ? {} : raw;
    refuseExtraKeys(value, this.fields);
    if (isPlainObject(value)) this.options.check?.(value);
    return (await this.inner.transform(value, { type: 'body', metatype: this.metatype, data: undefined })) as T;
  }
}
