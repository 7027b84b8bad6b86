import fc from 'fast-check';
import {
  CUSTOMER_SEARCH_FIELDS,
  MAX_CLAUSES,
  PAYMENT_INTENT_SEARCH_FIELDS,
  parseSearchQuery,
  printSearchQuery,
  type SearchClause,
  type SearchQuery,
  SearchSyntaxError,
} from './stripe-search-query';

const intents = (q: string): SearchQuery => parseSearchQuery(q, PAYMENT_INTENT_SEARCH_FIELDS);
const customers = (q: string): SearchQuery => parseSearchQuery(q, CUSTOMER_SEARCH_FIELDS);

/** The error a query raises (fails the test if it parses). */
function syntaxError(parse: () => unknown): SearchSyntaxError {
  try {
    parse();
  } catch (err) {
    if (err instanceof SearchSyntaxError) return err;
    throw err;
  }
  throw new Error('expected a SearchSyntaxError');
}

describe("Stripe's search query language", () => {
  it("parses Stripe's documented examples", () => {
    expect(customers('email:"amy@rocketrides.io"')).toEqual({
      combinator: 'AND',
      clauses: [{ field: 'email', negated: false, operator: ':', value: { kind: 'string', value: 'amy@rocketrides.io' } }],
    });
    expect(intents("status:'succeeded' AND metadata['order_id']:'6735'")).toEqual({
      combinator: 'AND',
      clauses: [
        { field: 'status', negated: false, operator: ':', value: { kind: 'string', value: 'succeeded' } },
        { field: 'metadata', key: 'order_id', negated: false, operator: ':', value: { kind: 'string', value: '6735' } },
      ],
    });
    expect(intents('-currency:"usd"').clauses[0]).toEqual({
      field: 'currency',
      negated: true,
      operator: ':',
      value: { kind: 'string', value: 'usd' },
    });
    expect(intents('amount>1000').clauses[0]).toMatchObject({ operator: '>', value: { kind: 'number', value: 1000 } });
    expect(customers('name~"Jen"').clauses[0]).toMatchObject({ operator: '~', value: { kind: 'string', value: 'Jen' } });
  });

  it('separates clauses by spaces (AND), AND or OR in any case; quoted numbers are numbers; = is :; null is a keyword', () => {
    expect(intents('amount>=10   currency:"eur"')).toMatchObject({ combinator: 'AND', clauses: [{}, {}] });
    expect(intents('amount<10 or amount>"20" OR created<=1700000000')).toMatchObject({
      combinator: 'OR',
      clauses: [
        { operator: '<', value: { kind: 'number', value: 10 } },
        { operator: '>', value: { kind: 'number', value: 20 } },
        { field: 'created', operator: '<=', value: { kind: 'number', value: 1_700_000_000 } },
      ],
    });
    expect(intents('amount=500').clauses[0]).toMatchObject({ operator: ':', value: { kind: 'number', value: 500 } });
    expect(intents('customer:null').clauses[0]).toMatchObject({ value: { kind: 'null' } });
    expect(intents('-metadata["k"]:NULL').clauses[0]).toMatchObject({ key: 'k', negated: true, value: { kind: 'null' } });
    expect(intents('customer:"null"').clauses[0]).toMatchObject({ value: { kind: 'string', value: 'null' } });
    expect(customers('name:"say \\"hi\\" \\\\ o\'k"').clauses[0]).toMatchObject({
      value: { kind: 'string', value: 'say "hi" \\ o\'k' },
    });
    expect(intents(`  amount:1  `).clauses).toHaveLength(1);
  });

  it.each([
    ['', 0, 'empty'],
    ['   ', 3, 'empty'],
    ['amount>1000 AND currency:"usd" OR status:"succeeded"', 31, 'AND and OR cannot be combined'],
    ['amount>1 amount<5 OR currency:"usd"', 18, 'AND and OR cannot be combined'],
    ['amount>1 OR amount<5 currency:"usd"', 21, 'AND and OR cannot be combined'],
    ['email:"x@y.z"', 0, "'email' is not a searchable field here"],
    ['currency:usd', 9, 'string values must be quoted'],
    ['currency~"usd"', 8, 'does not support substring matching'],
    ['status>"a"', 6, 'does not support >'],
    ['currency="usd"', 8, 'is matched with :'],
    ['amount~"100"', 6, 'does not support substring matching'],
    ['amount:"ten"', 7, 'is not an integer'],
    ['amount:10.5', 7, 'must be an integer'],
    ['amount>null', 6, 'null is only matched with :'],
    ['currency:"usd', 9, 'unterminated string'],
    ['metadata:"x"', 8, "metadata['key']"],
    ['metadata[""]:"x"', 9, 'the metadata key is empty'],
    ["metadata[k]:'x'", 9, 'expected a quoted metadata key'],
    ["metadata['k':'x'", 12, "expected ']'"],
    ["metadata['k']~'xyz'", 13, 'does not support substring matching'],
    ['amount: 10', 7, 'expected a value'],
    ['amount 10', 6, 'expected an operator'],
    ['amount:1amount:2', 7, 'must be an integer'],
    ['amount:1 AND ', 13, 'a clause must follow AND'],
    ['-', 1, 'expected a field name'],
    ['amount:99999999999999999999', 7, 'out of range'],
    ['customer:42', 9, 'quote the value'],
  ])('refuses %j at position %d (%s)', (query, position, reason) => {
    const err = syntaxError(() => intents(query));
    expect(err.message).toContain(reason);
    expect(err.position).toBe(position);
    expect(err.message).toMatch(new RegExp(`^Invalid search query at position ${position}: `));
  });

  it('checks substrings and fields per resource: ~ needs 3 characters on email, name and phone', () => {
    const short = syntaxError(() => customers('email~"ab"'));
    expect(short.message).toContain('at least 3 characters');
    expect(short.position).toBe(6);
    expect(customers('phone~"555" email~"@ex"').clauses).toHaveLength(2);
    expect(syntaxError(() => intents('status~"succ"')).message).toContain("'status' does not support substring matching");
    expect(syntaxError(() => customers('amount>1')).message).toContain("'amount' is not a searchable field here");
    expect(syntaxError(() => intents('name:"x"')).message).toContain(
      'searchable: amount, created, currency, customer, metadata, status',
    );
  });

  it('at most 10 clauses', () => {
    const ten = Array.from({ length: MAX_CLAUSES }, (_, i) => `amount>${i}`).join(' ');
    expect(intents(ten).clauses).toHaveLength(MAX_CLAUSES);
    const err = syntaxError(() => intents(`${ten} amount>99`));
    expect(err.message).toContain('at most 10 clauses');
    expect(err.position).toBe(ten.length + 1);
  });

  it('the query must stay under 1000 characters', () => {
    expect(syntaxError(() => customers(`name:"${'a'.repeat(1000)}"`)).message).toContain('longer than 1000');
  });
});

/** A random clause a field set allows (the values from a small alphabet with quotes and backslashes). */
function clauseArb(fields: typeof PAYMENT_INTENT_SEARCH_FIELDS): fc.Arbitrary<SearchClause> {
  const text = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '"', "'", '\\', 'é', '-', ':', 'x'), maxLength: 8 });
  const arbs = Object.entries(fields).map(([field, spec]) => {
    const negated = fc.boolean();
    if (spec.type === 'number') {
      return fc.record({
        field: fc.constant(field),
        negated,
        operator: fc.constantFrom(':' as const, '>' as const, '>=' as const, '<' as const, '<=' as const),
        value: fc.integer({ min: -5, max: 2_000_000_000 }).map((value) => ({ kind: 'number' as const, value })),
      });
    }
    const value = fc.oneof(
      text.map((value) => ({ kind: 'string' as const, value })),
      fc.constant({ kind: 'null' as const }),
    );
    if (spec.type === 'metadata') {
      return fc.record({
        field: fc.constant(field),
        key: text.filter((k) => k !== ''),
        negated,
        operator: fc.constant(':' as const),
        value,
      });
    }
    const substring = spec.substring
      ? [
          fc.record({
            field: fc.constant(field),
            negated,
            operator: fc.constant('~' as const),
            value: text.filter((s) => [...s].length >= 3).map((v) => ({ kind: 'string' as const, value: v })),
          }),
        ]
      : [];
    return fc.oneof(fc.record({ field: fc.constant(field), negated, operator: fc.constant(':' as const), value }), ...substring);
  });
  return fc.oneof(...arbs);
}

const queryArb = (fields: typeof PAYMENT_INTENT_SEARCH_FIELDS): fc.Arbitrary<SearchQuery> =>
  fc
    .record({
      combinator: fc.constantFrom('AND' as const, 'OR' as const),
      clauses: fc.array(clauseArb(fields), { minLength: 1, maxLength: MAX_CLAUSES }),
    })
    .map((q) => (q.clauses.length === 1 ? { ...q, combinator: 'AND' as const } : q)); // one clause: AND

describe('search query properties', () => {
  it('every query prints to text that parses back to the same query (payment intents and customers)', () => {
    for (const fields of [PAYMENT_INTENT_SEARCH_FIELDS, CUSTOMER_SEARCH_FIELDS]) {
      fc.assert(
        fc.property(queryArb(fields), (query) => {
          expect(parseSearchQuery(printSearchQuery(query), fields)).toEqual(query);
        }),
        { numRuns: 500, seed: 35 },
      );
    }
  });

  it('any text either parses or raises SearchSyntaxError at a position inside it (never another error)', () => {
    const piece = fc.constantFrom(
      'amount',
      'status',
      'metadata',
      "['k']",
      '["k"]',
      ':',
      '~',
      '>',
      '>=',
      '<',
      '<=',
      '=',
      '-',
      ' ',
      ' AND ',
      ' or ',
      '"',
      "'",
      '\\',
      '12',
      'null',
      'usd"',
      'x',
      '[',
      ']',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const text = pieces.join('');
        try {
          parseSearchQuery(text, PAYMENT_INTENT_SEARCH_FIELDS);
        } catch (err) {
          expect(err).toBeInstanceOf(SearchSyntaxError);
          const { position } = err as SearchSyntaxError;
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 3000, seed: 35 },
    );
  });
});
