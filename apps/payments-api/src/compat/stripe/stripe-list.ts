import type { ApiErrorRef } from '@app/platform';
import type { ListQuery } from '../../common/list';
import { invalidRequest } from './stripe-error';
import type { StripeParams } from './stripe-params';

/** A `/v1` list: `{object: "list", data, has_more, url}` (what the SDK's auto-pagination reads). */
export interface StripeList<T> {
  readonly object: 'list';
  readonly data: T[];
  readonly has_more: boolean;
  readonly url: string;
}

export function stripeList<T>(data: T[], hasMore: boolean, url: string): StripeList<T> {
  return { object: 'list', data, has_more: hasMore, url };
}

/** The OpenAPI schema of a `/v1` list of `item`. */
export function listSchema(item: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more', 'url'],
    properties: {
      object: { type: 'string', enum: ['list'] },
      data: { type: 'array', items: item },
      has_more: { type: 'boolean' },
      url: { type: 'string' },
    },
  };
}

/** The 400 a `/v1` list answers when `starting_after` or `ending_before` names nothing of the caller's (OpenAPI). */
export function cursorMissing(resource: string): ApiErrorRef {
  return { code: 'resource_missing', status: 400, when: `starting_after or ending_before names no ${resource} of yours` };
}

/** Unix seconds, as `/v1` shows every time. */
export function unix(date: Date): number;
export function unix(date: Date | null): number | null;
export function unix(date: Date | null): number | null {
  return date === null ? null : Math.floor(date.getTime() / 1000);
}

/** `limit` (1–100, default 10), `starting_after`, `ending_before` (not both), as the `/v2` services take them. */
export function listParams(p: StripeParams): ListQuery {
  const limit = p.integer('limit', { min: 1, max: 100 });
  const startingAfter = p.string('starting_after', { max: 255 });
  const endingBefore = p.string('ending_before', { max: 255 });
  if (startingAfter !== undefined && endingBefore !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: ending_before, starting_after.', {
      code: 'parameter_invalid',
      param: 'ending_before',
    });
  }
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(startingAfter === undefined ? {} : { starting_after: startingAfter }),
    ...(endingBefore === undefined ? {} : { ending_before: endingBefore }),
  };
}

/** A `created` filter: `created=<unix s>` (that second) or `created[gt|gte|lt|lte]=<unix s>`. */
export interface CreatedFilter {
  readonly gte?: Date;
  readonly lte?: Date;
}

/**
 * `created` (or another time parameter `name`) as inclusive bounds: gt and lt become gte and
 * lte one millisecond inward, an exact second its whole second.
 */
export function createdFilter(p: StripeParams, name = 'created'): CreatedFilter | undefined {
  const seconds = (value: number): Date => new Date(value * 1000);
  if (!p.isHash(name)) {
    const at = p.integer(name, { min: 0 });
    return at === undefined ? undefined : { gte: seconds(at), lte: new Date(seconds(at + 1).getTime() - 1) };
  }
  const nested = p.object(name);
  if (nested === undefined) return undefined;
  const gt = nested.integer('gt', { min: 0 });
  const gte = nested.integer('gte', { min: 0 });
  const lt = nested.integer('lt', { min: 0 });
  const lte = nested.integer('lte', { min: 0 });
  nested.done();
  const lower = [gt === undefined ? undefined : seconds(gt + 1), gte === undefined ? undefined : seconds(gte)].filter(
    (d): d is Date => d !== undefined,
  );
  const upper = [
    lt === undefined ? undefined : new Date(seconds(lt).getTime() - 1),
    lte === undefined ? undefined : new Date(seconds(lte + 1).getTime() - 1),
  ].filter((d): d is Date => d !== undefined);
  const from = lower.sort((a, b) => b.getTime() - a.getTime())[0];
  const to = upper.sort((a, b) => a.getTime() - b.getTime())[0];
  return { ...(from === undefined ? {} : { gte: from }), ...(to === undefined ? {} : { lte: to }) };
}
