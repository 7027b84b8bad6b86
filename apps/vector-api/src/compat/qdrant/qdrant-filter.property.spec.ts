import fc from 'fast-check';
import { compileFilter, type FilterRows, MetadataIndex, parseFilter } from '../../engine/filter';
import { checkFilterLimits, FilterLimitError } from '../../engine/filter-limits';
import { anyElement, type PayloadValue, valuesAt } from '../../../../../test/support/payload-reference';
import { translateFilter } from './qdrant-filter';

/**
 * Issue 34: a random Qdrant filter (must / should / must_not / min_should of match value,
 * any, except, text, range, is_empty, is_null, has_id and nested Filters) over random nested
 * payloads selects, once translated (translateFilter) and answered by the engine (its
 * inverted index and compileFilter), exactly what a reference evaluator of Qdrant's
 * documented semantics selects. The reference reads Qdrant's syntax itself, not the /v1
 * translation.
 */

type Json = Record<string, unknown>;
type Payload = { [key: string]: PayloadValue } | undefined;

/** Qdrant's semantics of one condition, from its documentation. */
function refCondition(payload: Payload, id: number, c: Json): boolean {
  if ('has_id' in c) return (c.has_id as number[]).includes(id);
  if ('is_empty' in c) {
    return valuesAt(payload, (c.is_empty as { key: string }).key).every(
      (v) => v === null || (Array.isArray(v) && v.length === 0),
    );
  }
  if ('is_null' in c) return valuesAt(payload, (c.is_null as { key: string }).key).some((v) => v === null);
  if ('key' in c) {
    const values = valuesAt(payload, c.key as string);
    if ('range' in c) {
      const r = c.range as { gt?: number; gte?: number; lt?: number; lte?: number };
      return anyElement(
        values,
        (v) =>
          typeof v === 'number' &&
          (r.gt === undefined || v > r.gt) &&
          (r.gte === undefined || v >= r.gte) &&
          (r.lt === undefined || v < r.lt) &&
          (r.lte === undefined || v <= r.lte),
      );
    }
    const m = c.match as { value?: PayloadValue; any?: PayloadValue[]; except?: PayloadValue[]; text?: string };
    if ('value' in m) return anyElement(values, (v) => v === m.value);
    if ('any' in m) return anyElement(values, (v) => (m.any ?? []).includes(v));
    if ('except' in m) return anyElement(values, (v) => v !== null && !(m.except ?? []).includes(v));
    return anyElement(values, (v) => typeof v === 'string' && v.includes(m.text ?? ''));
  }
  return refFilter(payload, id, c);
}

/** A Filter: every must, at least one should (when any), no must_not, min_should's count. */
function refFilter(payload: Payload, id: number, f: Json): boolean {
  const list = (v: unknown): Json[] => (v === undefined ? [] : (v as Json[]));
  const must = list(f.must).every((c) => refCondition(payload, id, c));
  const shouldList = list(f.should);
  const should = shouldList.length === 0 || shouldList.some((c) => refCondition(payload, id, c));
  const mustNot = !list(f.must_not).some((c) => refCondition(payload, id, c));
  const ms = f.min_should as { conditions: Json[]; min_count: number } | undefined;
  const minShould = ms === undefined || ms.conditions.filter((c) => refCondition(payload, id, c)).length >= ms.min_count;
  return must && should && mustNot && minShould;
}

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'ab', ''), fc.integer({ min: 0, max: 4 }), fc.boolean());
const key = fc.constantFrom('p', 'q', 'r');
const leaf: fc.Arbitrary<PayloadValue> = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: fc.constant(null) });
const { json } = fc.letrec<{ json: PayloadValue }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(leaf, { maxLength: 3 }) },
    {
      weight: 2,
      arbitrary: fc.array(fc.dictionary(key, tie('json'), { minKeys: 1, maxKeys: 2 }), { minLength: 1, maxLength: 2 }),
    },
    { weight: 2, arbitrary: fc.dictionary(key, tie('json'), { maxKeys: 3 }) },
  ),
}));
const payload: fc.Arbitrary<Payload> = fc.option(fc.dictionary(key, json, { maxKeys: 3 }), { freq: 12, nil: undefined });

const fieldKey = fc.constantFrom('p', 'q', 'p.q', 'p[].q', 'q.r', 'r');
const list = fc.array(scalar, { maxLength: 3 });
const bound = fc.integer({ min: -1, max: 5 });
const fieldCondition = fc.oneof(
  fc.record({ key: fieldKey, match: fc.record({ value: scalar }) }),
  fc.record({ key: fieldKey, match: fc.record({ any: list }) }),
  fc.record({ key: fieldKey, match: fc.record({ except: list }) }),
  fc.record({ key: fieldKey, match: fc.record({ text: fc.constantFrom('a', 'b', '') }) }),
  fc.record({
    key: fieldKey,
    range: fc
      .record({ gt: bound, gte: bound, lt: bound, lte: bound }, { requiredKeys: [] })
      .filter((r) => Object.keys(r).length > 0),
  }),
  fieldKey.map((k) => ({ is_empty: { key: k } })),
  fieldKey.map((k) => ({ is_null: { key: k } })),
  fc.array(fc.nat(24), { maxLength: 3 }).map((ids) => ({ has_id: ids })),
);
const { filter } = fc.letrec<{ filter: Json; condition: Json }>((tie) => ({
  condition: fc.oneof({ depthSize: 'small', withCrossShrink: true }, { weight: 6, arbitrary: fieldCondition }, tie('filter')),
  filter: fc
    .record(
      {
        must: fc.array(tie('condition'), { maxLength: 3 }),
        should: fc.array(tie('condition'), { maxLength: 3 }),
        must_not: fc.array(tie('condition'), { maxLength: 2 }),
        min_should: fc
          .tuple(fc.array(tie('condition'), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }))
          .map(([conditions, min_count]) => ({ conditions, min_count })),
      },
      { requiredKeys: [] },
    )
    .map((f) => f as Json),
}));

function tooComplex(translated: Json): boolean {
  try {
    parseFilter(translated);
    return false;
  } catch (err) {
    if (err instanceof FilterLimitError) return true;
    throw err;
  }
}

/** Rows by label; the row's id is its label's decimal digits (Qdrant's integer id N). */
function rowsOf(metas: readonly Payload[]): FilterRows {
  return {
    size: metas.length,
    isAlive: (label) => label < metas.length,
    metadata: (label) => metas[label],
    labelOf: (id) => (/^(0|[1-9][0-9]*)$/.test(id) && Number(id) < metas.length ? Number(id) : undefined),
  };
}

describe('Qdrant filters, translated and answered by the engine, agree with a reference of Qdrant semantics (property)', () => {
  it('selects exactly the rows the reference selects, by the index (indexed and scanned keys) and by compileFilter', () => {
    fc.assert(
      fc.property(fc.array(payload, { maxLength: 25 }), filter, (metas, qdrant) => {
        fc.pre(checkFilterLimits(qdrant) === undefined);
        const translated = translateFilter(qdrant);
        // A translation past the /v1 limits is refused (400 filter_too_complex), never answered wrongly.
        fc.pre(!tooComplex(translated));
        const parsed = parseFilter(translated);
        const expected = metas.map((_, l) => l).filter((l) => refFilter(metas[l], l, qdrant));
        const test = compileFilter(parsed);
        expect(metas.map((_, l) => l).filter((l) => test(metas[l], String(l)))).toEqual(expected);
        for (const budget of [undefined, { distinctValuesPerKey: 1, distinctValuesPerTable: 1 }]) {
          const index = new MetadataIndex(budget);
          metas.forEach((m, label) => index.add(label, m));
          expect(index.evaluate(parsed, rowsOf(metas))).toEqual(expected);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
