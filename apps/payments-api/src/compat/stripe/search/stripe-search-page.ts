import { createHash } from 'node:crypto';
import type { Cursor } from '../../../common/list';
import { invalidRequest } from '../stripe-error';

/**
 * A search's `page` (`next_page` of the previous answer): opaque to clients; inside, the last
 * row's position (created, id) and a digest of the resource and query it belongs to, so a page
 * of one query is refused for another (Stripe: a page goes with its query).
 */
interface PageToken {
  readonly v: 1;
  /** created_at, milliseconds */
  readonly t: number;
  readonly i: string;
  /** the query's digest */
  readonly q: string;
}

const digest = (resource: string, query: string): string =>
  createHash('sha256').update(`${resource}\n${query}`).digest('base64url').slice(0, 16);

export function encodePage(resource: string, query: string, last: Cursor): string {
  const token: PageToken = { v: 1, t: last.createdAt.getTime(), i: last.id, q: digest(resource, query) };
  return `page_${Buffer.from(JSON.stringify(token)).toString('base64url')}`;
}

const badPage = (why: string): Error =>
  invalidRequest(`Invalid page: ${why}. Pass the next_page of the previous answer to the same query.`, {
    code: 'parameter_invalid',
    param: 'page',
  });

export function decodePage(resource: string, query: string, page: string): Cursor {
  if (!page.startsWith('page_')) throw badPage('not a search page cursor');
  let token: unknown;
  try {
    token = JSON.parse(Buffer.from(page.slice('page_'.length), 'base64url').toString('utf8'));
  } catch {
    throw badPage('not a search page cursor');
  }
  const t = token as Partial<PageToken> | null;
  if (
    t === null ||
    typeof t !== 'object' ||
    t.v !== 1 ||
    typeof t.t !== 'number' ||
    !Number.isSafeInteger(t.t) ||
    typeof t.i !== 'string' ||
    t.i.length > 255 ||
    typeof t.q !== 'string'
  ) {
    throw badPage('not a search page cursor');
  }
  if (t.q !== digest(resource, query)) throw badPage('it belongs to another query');
  return { createdAt: new Date(t.t), id: t.i };
}
