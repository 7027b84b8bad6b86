import { RawHttpError } from '@app/platform';
import { createdFilter, listParams } from './stripe-list';
import { decodeParams, keySegments, StripeParams } from './stripe-params';

/** A flat object as Fastify's form and query parsers make it (no prototype; a repeated key an array). */
function flat(entries: Array<[string, string]>): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const [k, v] of entries) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function errorOf(fn: () => unknown): { status: number; error: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    if (err instanceof RawHttpError) return { status: err.status, error: err.body['error'] as Record<string, unknown> };
    throw err;
  }
  throw new Error('expected a Stripe error');
}

describe("Stripe's bracketed parameters", () => {
  it('splits keys into segments and refuses what is not bracket syntax', () => {
    expect(keySegments('amount')).toEqual(['amount']);
    expect(keySegments('metadata[order]')).toEqual(['metadata', 'order']);
    expect(keySegments('expand[]')).toEqual(['expand', '']);
    expect(keySegments('a[b][0][c]')).toEqual(['a', 'b', '0', 'c']);
    expect(keySegments('[x]')).toBeUndefined();
    expect(keySegments('a[b')).toBeUndefined();
    expect(keySegments('a[b]c')).toBeUndefined();
  });

  it('nests hashes and makes arrays of [] and of indexed keys', () => {
    const tree = decodeParams(
      flat([
        ['amount', '2000'],
        ['metadata[order]', '1042'],
        ['metadata[note]', 'a b'],
        ['expand[]', 'customer'],
        ['expand[]', 'latest_charge'],
        ['payment_method_types[1]', 'link'],
        ['payment_method_types[0]', 'card'],
        ['automatic_payment_methods[enabled]', 'true'],
      ]),
    );
    expect(JSON.parse(JSON.stringify(tree))).toEqual({
      amount: '2000',
      metadata: { order: '1042', note: 'a b' },
      expand: ['customer', 'latest_charge'],
      payment_method_types: ['card', 'link'],
      automatic_payment_methods: { enabled: 'true' },
    });
    expect(Object.getPrototypeOf(tree)).toBeNull();
  });

  it('refuses a repeated plain key, prototype keys, and nesting deeper than the limit', () => {
    expect(
      errorOf(() =>
        decodeParams(
          flat([
            ['email', 'a'],
            ['email', 'b'],
          ]),
        ),
      ),
    ).toMatchObject({
      status: 400,
      error: { code: 'parameter_duplicate', param: 'email' },
    });
    expect(errorOf(() => decodeParams(flat([['metadata[__proto__]', 'x']])))).toMatchObject({
      error: { code: 'parameter_unknown' },
    });
    expect(errorOf(() => decodeParams(flat([['a[b][c][d][e][f][g]', 'x']])))).toMatchObject({ status: 400 });
    expect(
      errorOf(() =>
        decodeParams(
          flat([
            ['metadata', 'x'],
            ['metadata[k]', 'y'],
          ]),
        ),
      ),
    ).toMatchObject({ status: 400 });
    // a JSON body's arrays are values, not repeated keys
    expect(JSON.parse(JSON.stringify(decodeParams({ expand: ['customer'] }, false)))).toEqual({ expand: ['customer'] });
  });

  it('refuses what PostgreSQL cannot store, NUL or a lone surrogate, in a name or a value (it was a 500)', () => {
    const cases: Array<[Record<string, unknown>, boolean, string]> = [
      [flat([['email', 'a\u0000b']]), true, 'email'],
      [flat([['metadata[\u0000]', 'x']]), true, 'metadata[\u0000]'],
      [
        flat([
          ['expand[]', 'x'],
          ['expand[]', '\u0000'],
        ]),
        true,
        'expand[]',
      ],
      [{ metadata: { a: 'x\ud800' } }, false, 'metadata[a]'],
      [{ metadata: { '\udc00': 'x' } }, false, 'metadata[\udc00]'],
      [{ expand: ['ok', 'no\u0000'] }, false, 'expand[1]'],
    ];
    for (const [params, form, param] of cases) {
      expect(errorOf(() => decodeParams(params, form))).toMatchObject({
        status: 400,
        error: { code: 'parameter_invalid', param },
      });
    }
    // a surrogate pair is Unicode
    expect(decodeParams({ name: 'ok \ud83d\ude00' }, false)['name']).toBe('ok 😀');
  });

  it('reads typed values as Stripe does and refuses unread parameters', () => {
    const p = StripeParams.of(
      flat([
        ['amount', '2000'],
        ['confirm', 'true'],
        ['description', ''],
        ['extra', '1'],
      ]),
    );
    expect(p.integer('amount', { required: true, min: 1 })).toBe(2000);
    expect(p.boolean('confirm')).toBe(true);
    expect(p.nullableString('description')).toBeNull();
    expect(errorOf(() => p.done())).toMatchObject({
      error: { code: 'parameter_unknown', param: 'extra', message: 'Received unknown parameter: extra' },
    });

    const q = StripeParams.of(
      flat([
        ['amount', '12.5'],
        ['confirm', 'yes'],
      ]),
    );
    expect(errorOf(() => q.integer('amount'))).toMatchObject({ error: { param: 'amount' } });
    expect(errorOf(() => q.boolean('confirm'))).toMatchObject({ error: { param: 'confirm' } });
    expect(errorOf(() => StripeParams.of(flat([])).integer('amount', { required: true }))).toMatchObject({
      error: { code: 'parameter_missing', param: 'amount', message: 'Missing required param: amount.' },
    });
    const nested = StripeParams.of(flat([['automatic_payment_methods[enabled]', 'maybe']])).object('automatic_payment_methods');
    expect(errorOf(() => nested?.boolean('enabled'))).toMatchObject({ error: { param: 'automatic_payment_methods[enabled]' } });
  });

  it('reads metadata updates: "" removes a key, metadata="" clears all', () => {
    expect(
      StripeParams.of(
        flat([
          ['metadata[a]', ''],
          ['metadata[b]', 'x'],
        ]),
      ).metadataUpdate(),
    ).toEqual({ a: '', b: 'x' });
    expect(StripeParams.of(flat([['metadata', '']])).metadataUpdate()).toBeNull();
    expect(
      StripeParams.of(
        flat([
          ['metadata[a]', ''],
          ['metadata[b]', 'x'],
        ]),
      ).metadata(),
    ).toEqual({ b: 'x' });
  });

  it('reads list parameters and created ranges as inclusive bounds', () => {
    expect(
      listParams(
        StripeParams.of(
          flat([
            ['limit', '5'],
            ['starting_after', 'cus_1'],
          ]),
        ),
      ),
    ).toEqual({ limit: 5, starting_after: 'cus_1' });
    expect(errorOf(() => listParams(StripeParams.of(flat([['limit', '101']]))))).toMatchObject({ error: { param: 'limit' } });
    expect(
      errorOf(() =>
        listParams(
          StripeParams.of(
            flat([
              ['starting_after', 'a'],
              ['ending_before', 'b'],
            ]),
          ),
        ),
      ),
    ).toMatchObject({
      error: { param: 'ending_before' },
    });
    expect(createdFilter(StripeParams.of(flat([['created', '100']])))).toEqual({
      gte: new Date(100_000),
      lte: new Date(100_999),
    });
    expect(
      createdFilter(
        StripeParams.of(
          flat([
            ['created[gt]', '100'],
            ['created[lte]', '200'],
          ]),
        ),
      ),
    ).toEqual({
      gte: new Date(101_000),
      lte: new Date(200_999),
    });
    expect(
      createdFilter(
        StripeParams.of(
          flat([
            ['created[gte]', '100'],
            ['created[gt]', '150'],
            ['created[lt]', '300'],
          ]),
        ),
      ),
    ).toEqual({
      gte: new Date(151_000),
      lte: new Date(299_999),
    });
    expect(createdFilter(StripeParams.of(flat([])))).toBeUndefined();
    expect(errorOf(() => createdFilter(StripeParams.of(flat([['created[after]', '1']]))))).toMatchObject({
      error: { param: 'created[after]' },
    });
  });
});
