/**
 * fast-check arbitraries for hostile HTTP input: query strings, path parameters, JSON
 * bodies (arbitrary, schema-aware mutations of a valid body, malformed text) and forms.
 *
 * Large values (100k-character strings, 10k-item arrays, 10k-level nesting) are JSON text
 * wrapped in `RawJson` with a short label, so a failure report stays readable.
 */
import fc from 'fast-check';

/** JSON text inserted verbatim by `jsonText` (numbers JSON.stringify cannot write, huge values, bad tokens). */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label?: string,
  ) {}

  [fc.toStringMethod](): string {
    if (this.label !== undefined) return `RawJson<${this.label}>`;
    return this.text.length > 120 ? `RawJson<${this.text.slice(0, 60)}… ${this.text.length} chars>` : `RawJson<${this.text}>`;
  }
}

/** An object written key by key, so keys may repeat or be `__proto__` (an object literal cannot hold either). */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}

  [fc.toStringMethod](): string {
    return `Entries<${this.entries.map(([k, v]) => `${JSON.stringify(k)}: ${fc.stringify(v)}`).join(', ')}>`;
  }
}

/** Serialises a body built from plain JSON values, `RawJson` and `Entries`. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((v) => jsonText(v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const LONG = 100_000;
export const POLLUTION_KEY = 'polluted';

/** Values of every wrong shape, put in place of a field (or of the whole body). */
export const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  '',
  ' ',
  '0',
  'true',
  'null',
  [],
  {},
  [null],
  [1, 'a', null],
  { $gt: '' },
  { $where: '1' },
  '\u0000',
  '😀👩‍👩‍👧',
  '\ud800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'NaN',
  new RawJson('-0'),
  new RawJson('1e308'),
  new RawJson('-1e308'),
  new RawJson('1e400', '1e400 (Infinity)'),
  new RawJson('9007199254740993', '2^53+1'),
  new RawJson('-9007199254740993', '-(2^53+1)'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('5e-324'),
  new RawJson('2147483648', '2^31'),
  new RawJson('4294967296', '2^32'),
  new RawJson(JSON.stringify('x'.repeat(LONG)), `string of ${LONG} chars`),
  new RawJson(JSON.stringify('é'.repeat(LONG / 2)), `string of ${LONG / 2} two-byte chars`),
  new RawJson(`[${new Array(10_000).fill('0').join(',')}]`, '10k zeros'),
  new RawJson(`[${new Array(10_000).fill('"a"').join(',')}]`, '10k strings'),
  new RawJson(`[${new Array(10_000).fill('{}').join(',')}]`, '10k objects'),
  new RawJson(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, '10k nested arrays'),
  new RawJson(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, '10k nested objects'),
  new RawJson(`{${Array.from({ length: 5_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`, '5k keys'),
  'lone \udfff surrogate',
  { key: 'lone \ud800 surrogate' },
  '\udc00\ud800',
  new Entries([['__proto__', { [POLLUTION_KEY]: 'yes' }]]),
  new Entries([['constructor', { prototype: { [POLLUTION_KEY]: 'yes' } }]]),
  new Entries([['prototype', { [POLLUTION_KEY]: 'yes' }]]),
];

export const SPECIAL_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  '',
  ' ',
  '$where',
  'a.b',
  'a[b]',
  '0',
  '😀',
  '\ud800',
  'x'.repeat(1000),
] as const;

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  // any code point, lone surrogates included (valid JSON escapes, not Unicode)
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.double().map((d) => (Number.isFinite(d) ? d : new RawJson(String(d)))) },
  { weight: 1, arbitrary: fc.bigInt().map((b) => new RawJson(b.toString())) },
);

const anyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...SPECIAL_KEYS),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

type JsonPath = ReadonlyArray<string | number>;

/** Every path to a value inside `body` (objects and arrays, bounded), the root excluded. */
export function pathsOf(body: unknown, prefix: JsonPath = [], depth = 0): JsonPath[] {
  if (depth > 4) return [];
  const out: JsonPath[] = [];
  if (Array.isArray(body)) {
    body.slice(0, 3).forEach((v, i) => {
      out.push([...prefix, i], ...pathsOf(v, [...prefix, i], depth + 1));
    });
  } else if (typeof body === 'object' && body !== null) {
    for (const [k, v] of Object.entries(body)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k], depth + 1));
  }
  return out;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function parentOf(root: unknown, path: JsonPath): unknown {
  let cur: unknown = root;
  for (const p of path.slice(0, -1)) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

export type Mutation =
  | { readonly op: 'drop'; readonly path: JsonPath }
  | { readonly op: 'replace'; readonly path: JsonPath; readonly value: unknown }
  | { readonly op: 'extra'; readonly path: JsonPath; readonly key: string; readonly value: unknown }
  | { readonly op: 'proto'; readonly path: JsonPath; readonly key: '__proto__' | 'constructor' | 'prototype' };

/** Applies mutations to a copy of `body`; the result may hold RawJson / Entries values. */
export function mutate(body: unknown, mutations: readonly Mutation[]): unknown {
  let root: unknown = clone(body);
  for (const m of mutations) {
    const isRoot = m.path.length === 0;
    const target = isRoot ? undefined : parentOf(root, m.path);
    const last = m.path[m.path.length - 1];
    if (!isRoot && (typeof target !== 'object' || target === null)) continue;
    const container = target as Record<string | number, unknown> | undefined;
    const current = isRoot ? root : container?.[last];
    let next: unknown = current;
    switch (m.op) {
      case 'drop':
        if (isRoot) root = undefined;
        else if (Array.isArray(container)) container.splice(Number(last), 1);
        else if (container) delete container[last as string];
        continue;
      case 'replace':
        next = m.value;
        break;
      case 'extra':
      case 'proto': {
        const key = m.op === 'extra' ? m.key : m.key;
        const value =
          m.op === 'extra'
            ? m.value
            : m.key === 'constructor'
              ? { prototype: { [POLLUTION_KEY]: 'yes' } }
              : { [POLLUTION_KEY]: 'yes' };
        if (typeof current === 'object' && current !== null && !Array.isArray(current) && !(current instanceof RawJson)) {
          const entries = current instanceof Entries ? [...current.entries] : Object.entries(current);
          next = new Entries([...entries, [key, value]]);
        } else {
          next = new Entries([[key, value]]);
        }
        break;
      }
    }
    if (isRoot) root = next;
    else if (container) container[last] = next;
  }
  return root;
}

/** Schema-aware mutations of a valid body: drop a field, wrong value, extra / prototype keys, anywhere. */
export function bodyMutations(valid: object): fc.Arbitrary<Mutation[]> {
  const paths: JsonPath[] = [[], ...pathsOf(valid)];
  const path = fc.constantFrom(...paths);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('drop' as const),
        path: fc.constantFrom(...(paths.length > 1 ? paths.slice(1) : paths)),
      }),
    },
    { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), path, value: hostileValue }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('extra' as const), path, key: anyKey, value: hostileValue }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('proto' as const),
        path,
        key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
      }),
    },
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 });
}

/** Malformed JSON texts derived from a valid body's text. */
export function malformedJson(validText: string): fc.Arbitrary<RawJson> {
  const fixed = [
    validText.replace(/}$/, ',}'),
    validText.replace(/^\{/, '{,'),
    validText.replace(/:/, ':NaN,"x":'),
    validText.replace(/}$/, ',"n":NaN}'),
    validText.replace(/}$/, ',"n":Infinity}'),
    validText.replace(/}$/, ',"n":-Infinity}'),
    validText.replace(/}$/, ',"n":undefined}'),
    validText.replace(/"/g, "'"),
    validText.replace(/"([a-z_]+)":/g, '$1:'),
    `\uFEFF${validText}`,
    `${validText}\u0000`,
    `${validText}${validText}`,
    `${validText} trailing`,
    `// comment\n${validText}`,
    `${validText.replace(/}$/, '')},"dup":1,"dup":2}`,
    validText.replace(/^\{/, '{"a":1,"a":{"b":2},'),
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    '{"a":"line\nbreak"}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":+1}',
    '{"a":0x10}',
    '{"a" 1}',
    '{"a":1',
    '{"a":[1,2}',
    '[',
    '{',
    '"',
    'nul',
    'true false',
    '\u0000',
    ' ',
    '\n\n',
    '\uFEFF',
    '\uFEFF{}',
    'null',
    '0',
    '"string"',
    '[]',
    '[{}]',
  ];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fixed).map((text) => new RawJson(text)) },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 0, max: Math.max(0, validText.length - 1) }).map((n) => new RawJson(validText.slice(0, n))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max: validText.length }), fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }))
        .map(([at, junk]) => new RawJson(validText.slice(0, at) + junk + validText.slice(at))),
    },
  );
}

// ---------------------------------------------------------------------------------------
// Query strings

const QUERY_VALUES = [
  '',
  '0',
  '-1',
  '1',
  '1.5',
  '-0',
  '1e308',
  '1e400',
  '9007199254740993',
  '123456789012345678901234567890',
  'NaN',
  'Infinity',
  '-Infinity',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '0x10',
  ' 1',
  '1 ',
  '١٢٣',
  '😀',
  '\u0000',
  '%',
  'ü'.repeat(2000),
  'x'.repeat(10_000),
  '2026-11-21T00:00:00Z',
  '1700000000',
  '99999999999999',
  '0000-00-00',
  'live',
  'closed',
  'failed',
  'pay_x',
  'cus_x',
  'offer_x',
];

const BRACKET_KEYS = ['created[gte]', 'created[lte]', 'created[gt]', 'a[b][c]', 'a[]', '[]', 'limit[]', 'limit[$gt]', 'a]', '[a'];

/** One query parameter: a known name (or a bracketed / special / random key) and a hostile value. */
export function queryPair(known: readonly string[]): fc.Arbitrary<readonly [string, string]> {
  const key = fc.oneof(
    { weight: known.length > 0 ? 5 : 0, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...BRACKET_KEYS, ...SPECIAL_KEYS.filter((k) => k.length < 100)) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  );
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...QUERY_VALUES) },
    { weight: 2, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  );
  return fc.tuple(key, value);
}

/** A query string (without `?`): pairs percent-encoded, sometimes raw; keys may repeat. */
export function queryString(known: readonly string[]): fc.Arbitrary<string> {
  const pairs = fc.array(queryPair(known), { minLength: 0, maxLength: 6 });
  const repeatKnown =
    known.length > 0
      ? fc.tuple(
          fc.constantFrom(...known),
          fc.array(fc.constantFrom(...QUERY_VALUES.slice(0, 12)), { minLength: 2, maxLength: 4 }),
        )
      : fc.constant(undefined);
  const rawJunk = fc.constantFrom(
    '',
    '&',
    '&&',
    '=',
    '==',
    '=x',
    'a==b',
    '%',
    '%zz',
    '%00',
    'a=%ff%fe',
    '+',
    'a=1&a',
    ';a=1',
    '?a=1',
    '#x',
  );
  return fc.tuple(pairs, repeatKnown, rawJunk, fc.boolean()).map(([list, repeated, junk, raw]) => {
    const all: Array<readonly [string, string]> = [...list];
    if (repeated) for (const v of repeated[1]) all.push([repeated[0], v]);
    const enc = (s: string): string => (raw ? encodeUrlLoose(s) : encodeComponent(s));
    const text = all.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    return junk === '' ? text : `${text}${text ? '&' : ''}${junk}`;
  });
}

/** Encodes only what would break the URL itself (space, #, non-ASCII), leaving [ ] & = % as typed. */
export function encodeUrlLoose(s: string): string {
  return s.replace(/[^!-~]|[#"<>\\^`{|}]/gu, (c) => encodeComponent(c));
}

/**
 * encodeURIComponent, except that a lone UTF-16 surrogate (which encodeURIComponent refuses)
 * is sent as its WTF-8 bytes (`%ED%A0%80`): invalid UTF-8 on the wire, as a hostile client may send.
 */
export function encodeComponent(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0xd800 || cp > 0xdfff) {
      out += encodeURIComponent(ch);
      continue;
    }
    for (const b of [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]) out += `%${b.toString(16).toUpperCase()}`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Path parameters

/** Path parameter values: raw (already URL-safe or deliberately odd) text. */
export function pathParam(valid: readonly string[], otherIds: readonly string[]): fc.Arbitrary<string> {
  const fixed = [
    '..',
    '.',
    '%2e%2e',
    '%2E%2E%2F%2E%2E',
    '..%2f..%2fetc%2fpasswd',
    '%00',
    'a%00b',
    '%',
    '%zz',
    '%ff',
    '%c0%af',
    '%2F',
    '%5C',
    '%20',
    '+',
    '~',
    '*',
    '%F0%9F%98%80',
    encodeURIComponent('ü'),
    encodeURIComponent('\u202e'),
    'x'.repeat(101),
    'x'.repeat(2000),
    '0',
    '-1',
    '1e308',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'prototype',
    "'%20OR%201=1",
    '%22',
    '%3Cscript%3E',
  ];
  return fc.oneof(
    { weight: valid.length > 0 ? 3 : 0, arbitrary: valid.length > 0 ? fc.constantFrom(...valid) : fc.constant('x') },
    { weight: otherIds.length > 0 ? 2 : 0, arbitrary: otherIds.length > 0 ? fc.constantFrom(...otherIds) : fc.constant('x') },
    { weight: 3, arbitrary: fc.constantFrom(...fixed) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map((s) => encodeComponent(s)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('offer', 'ptn', 'client', 'ind', 'pay', 'cus', 're', 'we', 'whd', 'tok', 'acct'),
          fc.string({ unit: 'binary-ascii', maxLength: 30 }),
        )
        .map(([p, s]) => `${p}_${encodeComponent(s)}`),
    },
  );
}

// ---------------------------------------------------------------------------------------
// Forms (application/x-www-form-urlencoded)

/** A urlencoded form: known fields with hostile values, repeats, random fields, raw junk. */
export function formBody(known: Readonly<Record<string, readonly string[]>>): fc.Arbitrary<string> {
  const names = Object.keys(known);
  const value = (name: string): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(known[name] ?? ['x'])) },
      { weight: 1, arbitrary: fc.constantFrom(...QUERY_VALUES) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    );
  const knownPair = fc.constantFrom(...names).chain((n) => value(n).map((v) => [n, v] as const));
  const randomPair = fc.tuple(
    fc.oneof(fc.constantFrom(...SPECIAL_KEYS.filter((k) => k.length < 100)), fc.string({ maxLength: 10 })),
    fc.string({ maxLength: 20 }),
  );
  const pair = fc.oneof({ weight: 5, arbitrary: knownPair }, { weight: 1, arbitrary: randomPair });
  const junk = fc.constantFrom('', '&', '=', '%', '%zz', 'a', '&&&', '==', '%00=%00');
  return fc.tuple(fc.array(pair, { maxLength: 6 }), junk, fc.boolean()).map(([pairs, j, raw]) => {
    const enc = (s: string): string => (raw ? encodeUrlLoose(s).replace(/&/g, '%26') : encodeComponent(s));
    const text = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    return j === '' ? text : `${text}&${j}`;
  });
}
