import { checkFilterLimits } from '../../engine/filter-limits';
import { badRequest, qdrantError, unsupported } from './qdrant-error';
import { toStoredIds } from './qdrant-ids';

/**
 * Qdrant's filter (must / should / must_not / min_should of conditions) translated into
 * vector-api's /v1 filter syntax (docs/vector.md, "Filters"), which the same parser then
 * checks (`toFilter`): one filter language, one engine. What Qdrant has and the engine does
 * not (geo, values_count, nested, datetime ranges, has_vector, phrase and text_any matches)
 * is a 400 naming it, never a filter that silently means something else.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const FILTER_KEYS = new Set(['must', 'should', 'must_not', 'min_should']);

/** A list of conditions: Qdrant takes one condition or an array of them. */
function conditions(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * A Qdrant Filter as a /v1 filter (`{}` for an empty one). The filter's size limits
 * (docs/vector.md, "Filters") are checked first, in one pass without recursion, so the
 * translation's recursion is bounded as the parser's is.
 */
export function translateFilter(raw: unknown, path = 'filter'): Json {
  const tooLarge = checkFilterLimits(raw, path);
  if (tooLarge) throw qdrantError(400, `Bad request: filter_too_complex: ${tooLarge.message}`);
  return filterOf(raw, path);
}

function filterOf(raw: unknown, path: string): Json {
  if (raw === null || raw === undefined) return {};
  if (!isObject(raw)) throw badRequest(`${path} must be an object (a Filter: must, should, must_not, min_should)`);
  for (const key of Object.keys(raw)) {
    if (!FILTER_KEYS.has(key))
      throw badRequest(`${path}: unknown field \`${key}\` (a Filter has must, should, must_not, min_should)`);
  }
  const parts: Json[] = [];
  // An empty Filter as a condition holds for every row (LlamaIndex sends {"must": [{"must": []}]}).
  const always = (f: Json): boolean => Object.keys(f).length === 0;
  for (const [i, c] of conditions(raw.must).entries()) {
    const t = translateCondition(c, `${path}.must[${i}]`);
    if (!always(t)) parts.push(t);
  }
  const should = conditions(raw.should).map((c, i) => translateCondition(c, `${path}.should[${i}]`));
  if (should.length > 0 && !should.some(always)) parts.push(should.length === 1 ? should[0] : { $or: should });
  const mustNot = conditions(raw.must_not).map((c, i) => translateCondition(c, `${path}.must_not[${i}]`));
  if (mustNot.length > 0) parts.push({ $not: mustNot.length === 1 ? mustNot[0] : { $or: mustNot } });
  if (raw.min_should !== undefined && raw.min_should !== null) {
    const ms = raw.min_should;
    if (!isObject(ms) || !Array.isArray(ms.conditions) || typeof ms.min_count !== 'number') {
      throw badRequest(`${path}.min_should must be {conditions: [...], min_count: integer}`);
    }
    const filters = ms.conditions.map((c, i) => translateCondition(c, `${path}.min_should.conditions[${i}]`));
    parts.push({ $minShould: { filters, count: ms.min_count } });
  }
  return allOf(parts);
}

/**
 * Parts that must all hold, as one /v1 filter: one object when their keys differ (the keys
 * of a filter are ANDed, and no logical level is spent), `$and` otherwise. So a Qdrant
 * Filter costs the /v1 depth limit what it costs Qdrant: one level per nested Filter.
 */
function allOf(parts: readonly Json[]): Json {
  if (parts.length === 0) return {};
  if (parts.length === 1) return parts[0];
  const merged: Json = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (Object.hasOwn(merged, key)) return { $and: parts };
      merged[key] = value;
    }
  }
  return merged;
}

/** One condition: a field condition, is_empty, is_null, has_id, or a nested Filter. */
export function translateCondition(raw: unknown, path: string): Json {
  if (!isObject(raw)) throw badRequest(`${path} must be a condition object`);
  if ('nested' in raw) throw unsupported('The `nested` condition (filtering inside array elements as one object)');
  if ('has_vector' in raw) throw unsupported('The `has_vector` condition (named vectors)');
  if ('has_id' in raw) return { $hasId: toStoredIds(raw.has_id, `${path}.has_id`) };
  if ('is_empty' in raw) return { [fieldKey((raw.is_empty as Json | null)?.key, `${path}.is_empty.key`)]: { $isEmpty: true } };
  if ('is_null' in raw) return { [fieldKey((raw.is_null as Json | null)?.key, `${path}.is_null.key`)]: { $isNull: true } };
  if ('key' in raw) return fieldCondition(raw, path);
  // A Filter as a condition; `{}` is the empty Filter (every row), as Qdrant reads it.
  if (Object.keys(raw).length === 0 || Object.keys(raw).some((k) => FILTER_KEYS.has(k))) {
    const inner = filterOf(raw, path);
    // An empty Filter as a condition holds for every row.
    return inner;
  }
  throw badRequest(`${path}: unknown condition (expected key, has_id, is_empty, is_null or a Filter)`);
}

function fieldKey(key: unknown, path: string): string {
  if (typeof key !== 'string' || key === '') throw badRequest(`${path} must be a non-empty string (a payload key)`);
  return key;
}

const SCALAR = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function fieldCondition(raw: Json, path: string): Json {
  const key = fieldKey(raw.key, `${path}.key`);
  for (const geo of ['geo_bounding_box', 'geo_radius', 'geo_polygon']) {
    if (raw[geo] !== undefined && raw[geo] !== null) throw unsupported(`The \`${geo}\` condition (geo filters)`);
  }
  if (raw.values_count !== undefined && raw.values_count !== null) throw unsupported('The `values_count` condition');
  const ops: Json[] = [];
  if (raw.match !== undefined && raw.match !== null) ops.push(matchOf(key, raw.match, `${path}.match`));
  if (raw.range !== undefined && raw.range !== null) ops.push(rangeOf(key, raw.range, `${path}.range`));
  if (raw.is_empty === true || raw.is_empty === false) ops.push({ [key]: { $isEmpty: raw.is_empty } });
  if (raw.is_null === true || raw.is_null === false) ops.push({ [key]: { $isNull: raw.is_null } });
  if (ops.length === 0) throw badRequest(`${path}: a field condition needs match, range, is_empty or is_null`);
  return allOf(ops);
}

function matchOf(key: string, match: unknown, path: string): Json {
  if (!isObject(match)) throw badRequest(`${path} must be an object (value, any, except or text)`);
  if ('value' in match) {
    if (!SCALAR(match.value)) throw badRequest(`${path}.value must be a string, an integer or a boolean`);
    return { [key]: match.value };
  }
  if ('any' in match) return { [key]: { $in: scalars(match.any, `${path}.any`) } };
  if ('except' in match) return { [key]: { $except: scalars(match.except, `${path}.except`) } };
  if ('text' in match) {
    if (typeof match.text !== 'string') throw badRequest(`${path}.text must be a string`);
    return { [key]: { $text: match.text } };
  }
  if ('phrase' in match) throw unsupported('`match.phrase` (full-text phrase match)');
  if ('text_any' in match) throw unsupported('`match.text_any` (full-text any-token match)');
  throw badRequest(`${path}: unknown match (expected value, any, except or text)`);
}

function scalars(value: unknown, path: string): Array<string | number | boolean> {
  if (!Array.isArray(value) || !value.every(SCALAR)) throw badRequest(`${path} must be a list of strings or integers`);
  return value;
}

const RANGE_OPS = { gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' } as const;

function rangeOf(key: string, range: unknown, path: string): Json {
  if (!isObject(range)) throw badRequest(`${path} must be an object (gt, gte, lt, lte)`);
  const ops: Record<string, number> = {};
  for (const [name, value] of Object.entries(range)) {
    const op = RANGE_OPS[name as keyof typeof RANGE_OPS];
    if (op === undefined) throw badRequest(`${path}: unknown field \`${name}\` (gt, gte, lt, lte)`);
    if (value === null) continue;
    if (typeof value === 'string') throw unsupported('A datetime range (RFC 3339 bounds)');
    if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(`${path}.${name} must be a number`);
    ops[op] = value;
  }
  if (Object.keys(ops).length === 0) throw badRequest(`${path} needs at least one of gt, gte, lt, lte`);
  return { [key]: ops };
}
