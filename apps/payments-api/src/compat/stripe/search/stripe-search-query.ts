/**
 * Stripe's search query language (https://docs.stripe.com/search#search-query-language), parsed
 * into clauses a resource's fields are checked against. Pure: no database, no Nest; the SQL is
 * stripe-search-sql.ts. The grammar (docs/stripe.md, "Search"):
 *
 *   query   := clause ( separator clause )*          at most MAX_CLAUSES clauses
 *   sep     := spaces | spaces AND spaces | spaces OR spaces   (AND/OR in any case; not mixed)
 *   clause  := [-] field operator value               no spaces inside a clause
 *   field   := name | metadata[ 'key' ] | metadata[ "key" ]
 *   op      := :  exact (case-insensitive)   ~  substring (3+ characters, where the field allows)
 *              >  >=  <  <=  =               numbers and timestamps (Unix seconds)
 *   value   := "text" | 'text' (\ escapes a quote or a backslash) | integer | null
 */

/** Most clauses one query may have (Stripe's limit). */
export const MAX_CLAUSES = 10;
/** Fewest characters a `~` substring may have (Stripe's limit). */
export const MIN_SUBSTRING = 3;
/** Longest query accepted (characters). */
export const MAX_QUERY_LENGTH = 1000;

export type SearchOperator = ':' | '~' | '>' | '>=' | '<' | '<=';

export type SearchValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'null' };

export interface SearchClause {
  /** The field (`metadata` for a metadata key). */
  readonly field: string;
  /** The metadata key of `metadata['key']`. */
  readonly key?: string;
  readonly negated: boolean;
  /** `=` is read as `:` (both are equality on numbers). */
  readonly operator: SearchOperator;
  readonly value: SearchValue;
}

export interface SearchQuery {
  /** How the clauses combine (spaces alone: AND). */
  readonly combinator: 'AND' | 'OR';
  readonly clauses: readonly SearchClause[];
}

/**
 * What a field holds: `string` (exact, case-insensitive; `~` when `substring`), `number`
 * (integers: exact and comparisons; quotes optional), `metadata` (by key: exact or null).
 * `nullable`: the field can be empty (then `field:null` matches it).
 */
export type SearchFieldSpec =
  | { readonly type: 'string'; readonly substring?: boolean; readonly nullable?: boolean }
  | { readonly type: 'number' }
  | { readonly type: 'metadata' };

export type SearchFields = Readonly<Record<string, SearchFieldSpec>>;

/** Customers' searchable fields (Stripe's set: created, email, metadata, name, phone). */
export const CUSTOMER_SEARCH_FIELDS: SearchFields = {
  created: { type: 'number' },
  email: { type: 'string', substring: true, nullable: true },
  metadata: { type: 'metadata' },
  name: { type: 'string', substring: true, nullable: true },
  phone: { type: 'string', substring: true, nullable: true },
};

/** PaymentIntents' searchable fields (Stripe's set: amount, created, currency, customer, metadata, status). */
export const PAYMENT_INTENT_SEARCH_FIELDS: SearchFields = {
  amount: { type: 'number' },
  created: { type: 'number' },
  currency: { type: 'string' },
  customer: { type: 'string', nullable: true },
  metadata: { type: 'metadata' },
  status: { type: 'string' },
};

/** A query that does not parse, or names what its resource cannot search: `position` is 0-based. */
export class SearchSyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`Invalid search query at position ${position}: ${reason}`);
  }
}

const NAME = /[A-Za-z_][A-Za-z0-9_.]*/y;
const INTEGER = /-?\d+/y;
const SPACES = /[ \t\r\n]+/y;
const COMBINATOR = /(AND|OR)(?=[ \t\r\n])/iy;

/** Parses `text` for a resource with `fields`; throws SearchSyntaxError naming the position. */
export function parseSearchQuery(text: string, fields: SearchFields): SearchQuery {
  return new Parser(text, fields).query();
}

class Parser {
  private at = 0;

  constructor(
    private readonly text: string,
    private readonly fields: SearchFields,
  ) {}

  private fail(reason: string, at = this.at): never {
    throw new SearchSyntaxError(at, reason);
  }

  private match(re: RegExp): string | undefined {
    re.lastIndex = this.at;
    const m = re.exec(this.text);
    if (m === null) return undefined;
    this.at = re.lastIndex;
    return m[0];
  }

  private get done(): boolean {
    return this.at >= this.text.length;
  }

  query(): SearchQuery {
    if (this.text.length > MAX_QUERY_LENGTH) this.fail(`the query is longer than ${MAX_QUERY_LENGTH} characters`, 0);
    this.match(SPACES);
    if (this.done) this.fail('the query is empty');
    const clauses: SearchClause[] = [];
    let combinator: 'AND' | 'OR' | undefined;
    let implicitAnd = false;
    for (;;) {
      const start = this.at;
      const clause = this.clause();
      clauses.push(clause);
      if (clauses.length > MAX_CLAUSES) this.fail(`a query has at most ${MAX_CLAUSES} clauses`, start);
      const spaced = this.match(SPACES) !== undefined;
      if (this.done) break;
      if (!spaced) this.fail('expected a space, AND or OR between clauses');
      const wordAt = this.at;
      const word = this.match(COMBINATOR)?.toUpperCase() as 'AND' | 'OR' | undefined;
      if (word === undefined) implicitAnd = true;
      else {
        this.match(SPACES);
        if (this.done) this.fail(`a clause must follow ${word}`);
      }
      const now = word ?? 'AND';
      if ((combinator !== undefined && combinator !== now) || (now === 'OR' && implicitAnd)) {
        this.fail('AND and OR cannot be combined in one query (nor OR with clauses separated by spaces)', wordAt);
      }
      combinator = now;
    }
    return { combinator: combinator ?? 'AND', clauses };
  }

  private clause(): SearchClause {
    const negated = this.text[this.at] === '-';
    if (negated) this.at++;
    const fieldAt = this.at;
    const field = this.match(NAME);
    if (field === undefined) this.fail('expected a field name');
    const spec = this.fields[field];
    if (spec === undefined) {
      this.fail(`'${field}' is not a searchable field here (searchable: ${Object.keys(this.fields).join(', ')})`, fieldAt);
    }
    let key: string | undefined;
    if (spec.type === 'metadata') {
      if (this.text[this.at] !== '[') this.fail("metadata is searched by key: metadata['key']:'value'");
      this.at++;
      const keyAt = this.at;
      key = this.quoted();
      if (key === undefined) this.fail('expected a quoted metadata key', keyAt);
      if (key === '') this.fail('the metadata key is empty', keyAt);
      if (this.text[this.at] !== ']') this.fail("expected ']' after the metadata key");
      this.at++;
    }
    const opAt = this.at;
    const raw = this.match(/>=|<=|[:~><=]/y);
    if (raw === undefined) this.fail(`expected an operator (:, ~, >, >=, <, <=) after '${field}'`);
    const operator: SearchOperator = raw === '=' ? ':' : (raw as SearchOperator);
    const valueAt = this.at;
    const value = this.checked(spec, field, operator, raw, this.value(), opAt, valueAt);
    return { field, ...(key === undefined ? {} : { key }), negated, operator, value };
  }

  /** A quoted string at the cursor (undefined when no quote starts there). */
  private quoted(): string | undefined {
    const quote = this.text[this.at];
    if (quote !== '"' && quote !== "'") return undefined;
    const open = this.at;
    let out = '';
    for (let i = this.at + 1; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '\\') {
        const next = this.text[i + 1];
        if (next === undefined) break;
        out += next;
        i++;
      } else if (c === quote) {
        this.at = i + 1;
        return out;
      } else out += c;
    }
    this.fail(`unterminated string (the quote ${quote} is not closed)`, open);
  }

  private value(): SearchValue {
    const quoted = this.quoted();
    if (quoted !== undefined) return { kind: 'string', value: quoted };
    const number = this.match(INTEGER);
    if (number !== undefined) {
      if (/^[A-Za-z0-9_.@]/.test(this.text[this.at] ?? ''))
        this.fail('a number must be an integer; quote a string value', this.at - number.length);
      return this.integer(number);
    }
    const word = this.match(/[^\s]+/y);
    if (word === undefined) this.fail('expected a value');
    if (word.toLowerCase() === 'null') return { kind: 'null' };
    this.fail(`string values must be quoted ("${word}")`, this.at - word.length);
  }

  private integer(text: string): SearchValue {
    const n = Number(text);
    if (!Number.isSafeInteger(n)) this.fail(`${text} is out of range`, this.at - text.length);
    return { kind: 'number', value: n };
  }

  /** The value, if the field's type allows it with this operator (a quoted number read as a number). */
  private checked(
    spec: SearchFieldSpec,
    field: string,
    operator: SearchOperator,
    raw: string,
    value: SearchValue,
    opAt: number,
    valueAt: number,
  ): SearchValue {
    if (value.kind === 'null') {
      if (operator !== ':' || raw === '=') this.fail('null is only matched with :', opAt);
      return value;
    }
    if (spec.type === 'number') {
      if (operator === '~') this.fail(`'${field}' does not support substring matching (~)`, opAt);
      if (value.kind === 'string') {
        if (!/^-?\d+$/.test(value.value)) this.fail(`'${field}' is a number: "${value.value}" is not an integer`, valueAt);
        const n = Number(value.value);
        if (!Number.isSafeInteger(n)) this.fail(`${value.value} is out of range`, valueAt);
        return { kind: 'number', value: n };
      }
      return value;
    }
    if (operator !== ':' && operator !== '~') this.fail(`'${field}' does not support ${raw} (numbers and created only)`, opAt);
    if (raw === '=') this.fail(`'${field}' is matched with : (= compares numbers)`, opAt);
    if (value.kind === 'number') this.fail(`'${field}' is a string: quote the value`, valueAt);
    if (operator === '~') {
      if (spec.type !== 'string' || !spec.substring) this.fail(`'${field}' does not support substring matching (~)`, opAt);
      if ([...value.value].length < MIN_SUBSTRING) {
        this.fail(`a substring (~) needs at least ${MIN_SUBSTRING} characters`, valueAt);
      }
    }
    return value;
  }
}

/** A query as text (parses back to the same query): for tests and the docs. */
export function printSearchQuery(query: SearchQuery): string {
  const value = (v: SearchValue): string =>
    v.kind === 'null' ? 'null' : v.kind === 'number' ? String(v.value) : `"${v.value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return query.clauses
    .map((c) => {
      const key = c.key === undefined ? '' : `['${c.key.replace(/['\\]/g, (ch) => `\\${ch}`)}']`;
      return `${c.negated ? '-' : ''}${c.field}${key}${c.operator}${value(c.value)}`;
    })
    .join(` ${query.combinator} `);
}
