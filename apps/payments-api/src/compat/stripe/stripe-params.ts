import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { METADATA_LIMITS } from '../../common/metadata';
import { invalidRequest, missingParam, unknownParam } from './stripe-error';

/** Keys that must never reach an object (as the platform's JSON parser refuses them). */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
/** How deep `a[b][c]…` may nest: Stripe's own parameters go three levels deep at most. */
export const MAX_PARAM_DEPTH = 5;
/** Elements of one array parameter (`expand[]`, `enabled_events[]`, …). */
export const MAX_ARRAY_LENGTH = 100;

type Tree = { [key: string]: Node };
type Node = string | number | boolean | null | Tree | Node[];

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `metadata[k][x]` → ['metadata', 'k', 'x']; `expand[]` → ['expand', '']; undefined when not Stripe's bracket syntax. */
export function keySegments(key: string): string[] | undefined {
  const open = key.indexOf('[');
  if (open === -1) return [key];
  if (open === 0) return undefined;
  const segments = [key.slice(0, open)];
  const rest = key.slice(open);
  const re = /\[([^[\]]*)\]/y;
  let at = 0;
  while (at < rest.length) {
    re.lastIndex = at;
    const m = re.exec(rest);
    if (m === null) return undefined;
    segments.push(m[1] ?? '');
    at = re.lastIndex;
  }
  return segments;
}

/** Objects whose keys are 0…n-1 (`expand[0]`, `expand[1]`) become arrays, recursively. */
function arraysOf(node: Node): Node {
  if (Array.isArray(node)) return node.map(arraysOf);
  if (!isTree(node)) return node;
  const keys = Object.keys(node);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    const indexes = keys.map(Number).sort((a, b) => a - b);
    if (indexes.every((n, i) => n === i)) return indexes.map((i) => arraysOf(node[String(i)]));
  }
  const out: Tree = Object.create(null) as Tree;
  for (const k of keys) out[k] = arraysOf(node[k]);
  return out;
}

/**
 * A flat parameter object (a form body or a query string as Fastify parses them: bracketed keys,
 * a repeated key as an array) as the nested object Stripe's API reads: `metadata[k]=v` →
 * `{metadata: {k: v}}`, `expand[]=a&expand[]=b` and `expand[0]=a&expand[1]=b` → `{expand: [a, b]}`.
 * A JSON body (already nested) passes through the same walk. A repeated key that is not `[]`, a
 * key that is not bracket syntax, or one nested deeper than MAX_PARAM_DEPTH is a 400.
 */
export function decodeParams(flat: unknown, form = true): Tree {
  const root: Tree = Object.create(null) as Tree;
  if (flat === undefined || flat === null || flat === '') return root;
  if (!isTree(flat)) throw invalidRequest('The request body must be form-encoded parameters or a JSON object.');
  for (const [key, raw] of Object.entries(flat)) {
    storable(key, key);
    const segments = keySegments(key);
    if (segments === undefined) throw invalidRequest(`Invalid parameter name: ${key}`, { code: 'parameter_invalid', param: key });
    if (segments.length > MAX_PARAM_DEPTH + 1) {
      throw invalidRequest(`Parameter ${key} is nested more than ${MAX_PARAM_DEPTH} levels deep.`, { param: key });
    }
    for (const s of segments) if (FORBIDDEN.has(s)) throw unknownParam(key);
    // a form's (or query's) repeated key arrives as an array: only `a[]` may repeat
    const repeated = form && Array.isArray(raw);
    if (repeated && segments[segments.length - 1] !== '') {
      throw invalidRequest(`Received duplicate parameter: ${key}`, { code: 'parameter_duplicate', param: key });
    }
    const values = repeated ? (raw as unknown[]) : [raw];
    if (values.length > MAX_ARRAY_LENGTH) throw invalidRequest(`${key}: at most ${MAX_ARRAY_LENGTH} values.`, { param: key });
    for (const value of values) assign(root, segments, toNode(value, key, segments.length), key);
  }
  return arraysOf(root) as Tree;
}

/** A UTF-16 surrogate without its pair (a JSON body may spell one: `"\\ud800"`): not Unicode. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A parameter name or value PostgreSQL can store: no NUL (text cannot hold U+0000) and no lone
 * surrogate (nor can text or jsonb). Either reached the database as a 500 (`email=%00`, found
 * by test/fuzz/payments-api.e2e-spec.ts); now a 400 naming the parameter, as on /v2.
 */
function storable(text: string, key: string): string {
  if (text.includes('\u0000'))
    throw invalidRequest(`Invalid string: ${key} must not contain the NUL character.`, { code: 'parameter_invalid', param: key });
  if (LONE_SURROGATE.test(text))
    throw invalidRequest(`Invalid string: ${key} must be valid Unicode.`, { code: 'parameter_invalid', param: key });
  return text;
}

/** A JSON value as a Node, refusing forbidden keys and depth beyond the limit. */
function toNode(value: unknown, key: string, depth: number): Node {
  if (depth > MAX_PARAM_DEPTH + 1)
    throw invalidRequest(`Parameter ${key} is nested more than ${MAX_PARAM_DEPTH} levels deep.`, { param: key });
  if (typeof value === 'string') return storable(value, key);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    if (value.length > MAX_ARRAY_LENGTH) throw invalidRequest(`${key}: at most ${MAX_ARRAY_LENGTH} values.`, { param: key });
    return value.map((v, i) => toNode(v, `${key}[${i}]`, depth + 1));
  }
  if (isTree(value)) {
    const out: Tree = Object.create(null) as Tree;
    for (const [k, v] of Object.entries(value)) {
      if (FORBIDDEN.has(k)) throw unknownParam(`${key}[${k}]`);
      storable(k, `${key}[${k}]`);
      out[k] = toNode(v, `${key}[${k}]`, depth + 1);
    }
    return out;
  }
  throw invalidRequest(`Invalid value for ${key}.`, { param: key });
}

function assign(root: Tree, segments: readonly string[], value: Node, key: string): void {
  let node: Tree = root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    if (segment === '') {
      // `a[]`: append (the parent holds numbered children, made an array by arraysOf)
      const index = String(Object.keys(node).length);
      if (!last) throw invalidRequest(`Invalid parameter name: ${key}`, { code: 'parameter_invalid', param: key });
      node[index] = value;
      return;
    }
    if (last) {
      if (segment in node)
        throw invalidRequest(`Received duplicate parameter: ${key}`, { code: 'parameter_duplicate', param: key });
      node[segment] = value;
      return;
    }
    const next = segments[i + 1] === '' ? (node[segment] ?? (Object.create(null) as Tree)) : node[segment];
    if (next === undefined) {
      const child = Object.create(null) as Tree;
      node[segment] = child;
      node = child;
    } else if (isTree(next)) {
      node[segment] = next;
      node = next;
    } else {
      throw invalidRequest(`Received both ${segments.slice(0, i + 1).join('.')} and ${key}.`, { param: key });
    }
  }
}

/** A value as an error message quotes it: scalars as text (cut short), anything else as its kind. */
const shown = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value).slice(0, 40)
    : Array.isArray(value)
      ? 'an array'
      : 'a hash';

/** The name `a[b][c]` of a nested parameter, as Stripe names it in errors. */
const paramName = (prefix: string, name: string): string => (prefix === '' ? name : `${prefix}[${name}]`);

interface StringOptions {
  readonly required?: boolean;
  readonly max?: number;
}

interface IntegerOptions {
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
}

/**
 * The parameters of one `/v1` request, read by name: each reader checks the value's type as
 * Stripe's API does (form values are strings: "2000" is an integer, "true" a boolean) and marks
 * the key as read; `done()` refuses every key nobody read (Stripe's "Received unknown
 * parameter"), so a route accepts exactly the parameters its code reads.
 */
export class StripeParams {
  private readonly read = new Set<string>();

  constructor(
    private readonly values: Readonly<Record<string, unknown>>,
    private readonly prefix = '',
  ) {}

  /** `form`: flat parameters as a form body or a query string carries them (false: a JSON body). */
  static of(flat: unknown, form = true): StripeParams {
    return new StripeParams(decodeParams(flat, form));
  }

  /** Whether the parameter is a hash (`created[gte]=…`), without reading it. */
  isHash(name: string): boolean {
    return isTree(this.values[name]);
  }

  /** Whether the request sent this parameter (without reading it). */
  has(name: string): boolean {
    return Object.hasOwn(this.values, name);
  }

  private take(name: string): unknown {
    this.read.add(name);
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }

  private name(name: string): string {
    return paramName(this.prefix, name);
  }

  /** A string; "" only where the caller allows it through nullableString. */
  string(name: string, options: StringOptions & { required: true }): string;
  string(name: string, options?: StringOptions): string | undefined;
  string(name: string, options: StringOptions = {}): string | undefined {
    const value = this.take(name);
    if (value === undefined) {
      if (options.required) throw missingParam(this.name(name));
      return undefined;
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw invalidRequest(`Invalid string: ${this.name(name)} must be a string.`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    }
    const text = String(value);
    if (text === '') {
      throw invalidRequest(
        `You passed an empty string for '${this.name(name)}'. We assume empty values are an attempt to unset a parameter; however '${this.name(name)}' cannot be unset. You should remove '${this.name(name)}' from your request or supply a non-empty value.`,
        { code: 'parameter_invalid', param: this.name(name) },
      );
    }
    if (options.max !== undefined && text.length > options.max) {
      throw invalidRequest(`Invalid string: ${this.name(name)} is longer than ${options.max} characters.`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    }
    return text;
  }

  /** A string that "" (or JSON null) unsets: undefined (not sent), null (unset) or the text. */
  nullableString(name: string, options: { max?: number } = {}): string | null | undefined {
    const value = this.values[name];
    if (value === '' || value === null) {
      this.read.add(name);
      return null;
    }
    return this.string(name, options);
  }

  integer(name: string, options: IntegerOptions & { required: true }): number;
  integer(name: string, options?: IntegerOptions): number | undefined;
  integer(name: string, options: IntegerOptions = {}): number | undefined {
    const value = this.take(name);
    if (value === undefined) {
      if (options.required) throw missingParam(this.name(name));
      return undefined;
    }
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n)) {
      throw invalidRequest(`Invalid integer: ${shown(value)}`, { code: 'parameter_invalid', param: this.name(name) });
    }
    if (options.min !== undefined && n < options.min) {
      throw invalidRequest(`Invalid ${this.name(name)}: must be at least ${options.min}`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    }
    if (options.max !== undefined && n > options.max) {
      throw invalidRequest(`Invalid ${this.name(name)}: must be at most ${options.max}`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    }
    return n;
  }

  boolean(name: string): boolean | undefined {
    const value = this.take(name);
    if (value === undefined) return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    throw invalidRequest(`Invalid boolean: ${shown(value)}`, { code: 'parameter_invalid', param: this.name(name) });
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], options: { required: true }): T;
  oneOf<T extends string>(name: string, allowed: readonly T[], options?: { required?: boolean }): T | undefined;
  oneOf<T extends string>(name: string, allowed: readonly T[], options: { required?: boolean } = {}): T | undefined {
    const value = this.string(name, options);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw invalidRequest(`Invalid ${this.name(name)}: must be one of ${allowed.join(', ')}`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    }
    return value as T;
  }

  /** A list of strings (`a[]=x&a[]=y`, `a[0]=x`, or a JSON array). */
  strings(name: string, options: { required?: boolean; max?: number } = {}): string[] | undefined {
    const value = this.take(name);
    if (value === undefined || value === '') {
      if (options.required) throw missingParam(this.name(name));
      return value === '' ? [] : undefined;
    }
    const list = Array.isArray(value) ? value : [value];
    return list.map((v, i) => {
      if (typeof v !== 'string' || v === '') {
        throw invalidRequest(`Invalid array: ${this.name(name)}[${i}] must be a non-empty string.`, {
          code: 'parameter_invalid',
          param: `${this.name(name)}[${i}]`,
        });
      }
      if (options.max !== undefined && v.length > options.max) {
        throw invalidRequest(`Invalid string: ${this.name(name)}[${i}] is too long.`, {
          code: 'parameter_invalid',
          param: `${this.name(name)}[${i}]`,
        });
      }
      return v;
    });
  }

  /** `expand[]`: the paths to expand (checked by the Expander). */
  expand(): string[] {
    return this.strings('expand', { max: 200 }) ?? [];
  }

  /** A hash parameter (`automatic_payment_methods[enabled]=true`), read through its own StripeParams. */
  object(name: string): StripeParams | undefined {
    const value = this.take(name);
    if (value === undefined) return undefined;
    if (!isTree(value))
      throw invalidRequest(`Invalid object: ${this.name(name)} must be a hash.`, {
        code: 'parameter_invalid',
        param: this.name(name),
      });
    return new StripeParams(value, this.name(name));
  }

  /** Metadata on create: string values (numbers and booleans as Stripe stringifies them); "" unsets nothing, so it is refused. */
  metadata(): Record<string, string> | undefined {
    const update = this.metadataUpdate();
    if (update === undefined) return undefined;
    if (update === null) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(update)) if (v !== '') out[k] = v;
    return out;
  }

  /** Metadata on update: a value "" removes its key; `metadata=""` (null) removes every key. */
  metadataUpdate(): Record<string, string> | null | undefined {
    const value = this.take('metadata');
    if (value === undefined) return undefined;
    if (value === '' || value === null) return null;
    if (!isTree(value))
      throw invalidRequest('Invalid object: metadata must be a hash of strings.', {
        code: 'parameter_invalid',
        param: 'metadata',
      });
    const out: Record<string, string> = {};
    const entries = Object.entries(value);
    if (entries.length > METADATA_LIMITS.keys) {
      throw invalidRequest(`Invalid metadata: metadata can have up to ${METADATA_LIMITS.keys} keys.`, {
        code: 'parameter_invalid',
        param: 'metadata',
      });
    }
    for (const [k, v] of entries) {
      if (k.length === 0 || k.length > METADATA_LIMITS.keyLength) {
        throw invalidRequest(`Invalid metadata: keys must be 1 to ${METADATA_LIMITS.keyLength} characters.`, {
          code: 'parameter_invalid',
          param: `metadata[${k}]`,
        });
      }
      if (typeof v === 'string' && v.length > METADATA_LIMITS.valueLength) {
        throw invalidRequest(`Invalid metadata: values must be at most ${METADATA_LIMITS.valueLength} characters.`, {
          code: 'parameter_invalid',
          param: `metadata[${k}]`,
        });
      }
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
      else if (v === null) out[k] = '';
      else
        throw invalidRequest(`Invalid value for metadata[${k}]: must be a string.`, {
          code: 'parameter_invalid',
          param: `metadata[${k}]`,
        });
    }
    return out;
  }

  /** Accepted and ignored (documented in docs/stripe.md). */
  ignore(...names: string[]): void {
    for (const n of names) this.read.add(n);
  }

  /** Refuses every parameter the route did not read (Stripe's "Received unknown parameter"). */
  done(): void {
    for (const key of Object.keys(this.values)) if (!this.read.has(key)) throw unknownParam(this.name(key));
  }
}

/**
 * The `/v1` request's parameters: a POST's body (form-encoded or JSON), a GET's or DELETE's
 * query string, with Stripe's bracketed keys decoded. A POST with a query string is refused
 * (Stripe's clients send a POST's parameters in the body).
 */
export const StripeBody = createParamDecorator((_: unknown, context: ExecutionContext): StripeParams => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const query = request.query as Record<string, unknown> | undefined;
  if (request.method === 'POST') {
    const extra = Object.keys(query ?? {})[0];
    if (extra !== undefined) throw unknownParam(extra);
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    return StripeParams.of(request.body, type !== 'application/json');
  }
  return StripeParams.of(query);
});
