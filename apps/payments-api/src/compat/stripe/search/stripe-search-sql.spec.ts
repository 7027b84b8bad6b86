import { Prisma } from '@app/platform';
import { RawHttpError } from '@app/platform';
import { decodePage, encodePage } from './stripe-search-page';
import { PAYMENT_INTENT_SEARCH_FIELDS, parseSearchQuery } from './stripe-search-query';
import { type SearchColumns, searchCondition } from './stripe-search-sql';

const COLUMNS: SearchColumns = {
  amount: { kind: 'integer', sql: Prisma.sql`t.amount` },
  created: { kind: 'time', sql: Prisma.sql`t.created_at` },
  currency: { kind: 'text', sql: Prisma.sql`t.currency` },
  customer: { kind: 'text', sql: Prisma.sql`t.customer_id` },
  metadata: { kind: 'metadata', sql: Prisma.sql`t.metadata` },
  status: { kind: 'none' }, // (here a field this API would not keep, as a customer's phone)
};

const condition = (q: string): Prisma.Sql => searchCondition(parseSearchQuery(q, PAYMENT_INTENT_SEARCH_FIELDS), COLUMNS);

describe('search SQL', () => {
  it('binds every value and metadata key as a parameter (none is spliced into the text)', () => {
    const sql = condition(`metadata["x' OR 1=1 --"]:"'; DROP TABLE t; --" OR currency:"usd" OR -customer:null OR amount>=5`);
    expect(sql.text).not.toContain('DROP');
    expect(sql.text).not.toContain('1=1');
    expect(sql.text).not.toContain('usd');
    expect(sql.values).toEqual(["x' OR 1=1 --", "'; DROP TABLE t; --", 'usd', 5]);
    expect(sql.text).toBe(
      '((COALESCE(lower((t.metadata ->> $1::text)) = lower($2::text), FALSE)) OR (COALESCE(lower(t.currency) = lower($3::text), FALSE)) OR NOT (t.customer_id IS NULL) OR (t.amount >= $4))',
    );
  });

  it('compares created as whole Unix seconds: > n is from n+1 s, <= n is before n+1 s, : n is that second', () => {
    expect(condition('created>10').values).toEqual([new Date(11_000)]);
    expect(condition('created<=10').text).toContain('t.created_at < $1');
    expect(condition('created<=10').values).toEqual([new Date(11_000)]);
    expect(condition('created:10').values).toEqual([new Date(10_000), new Date(11_000)]);
  });

  it('a field this API does not keep is always empty', () => {
    expect(condition('status:null').text).toBe('((TRUE))');
    expect(condition('-status:"x"').text).toBe('(NOT (FALSE))');
  });
});

describe('search page cursors', () => {
  const last = { createdAt: new Date(1_700_000_000_123), id: 'cus_abc' };

  it('round-trip for the same resource and query', () => {
    expect(decodePage('customer', 'name:"x"', encodePage('customer', 'name:"x"', last))).toEqual(last);
  });

  it.each([
    ['another query', encodePage('customer', 'name:"y"', last), 'it belongs to another query'],
    ['another resource', encodePage('payment_intent', 'name:"x"', last), 'it belongs to another query'],
    ['not a cursor', 'cus_abc', 'not a search page cursor'],
    ['not JSON', 'page_!!!', 'not a search page cursor'],
    [
      'the wrong JSON',
      `page_${Buffer.from(JSON.stringify({ v: 1, t: 'x', i: 1, q: '' })).toString('base64url')}`,
      'not a search page cursor',
    ],
  ])('refuse %s (400, param page)', (_, page, reason) => {
    let error: unknown;
    try {
      decodePage('customer', 'name:"x"', page);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RawHttpError);
    const e = error as RawHttpError;
    expect(e.status).toBe(400);
    expect(e.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'parameter_invalid', param: 'page' } });
    expect(JSON.stringify(e.body)).toContain(reason);
  });
});
