import type { Metadata } from '../engine/filter';
import { VectorError } from '../errors';
import type { InsertVectorsDto } from './dto/vectors.dto';
import type { MetadataLimits } from './metadata-size';
import { checkRows, deletePayloadKeys, mergeMetadata, setPayloadKeys, toFilter } from './row-rules';

/** Issue 34: nested metadata through both APIs' write paths (row-rules.ts). */

const limits: MetadataLimits = { maxBytes: 1000, maxKeys: 10 };
const table = { name: 'docs', dimension: 2 };
const batch = (...metadata: unknown[]): InsertVectorsDto =>
  ({ rows: metadata.map((m, i) => ({ id: `r${i}`, embedding: [1, 0], metadata: m })) }) as InsertVectorsDto;

function failure(run: () => unknown): VectorError {
  try {
    run();
  } catch (err) {
    if (err instanceof VectorError) return err;
    throw err;
  }
  throw new Error('did not fail');
}

describe('checkRows and nested metadata', () => {
  it('accepts nested objects and arrays of objects', () => {
    const meta = { content: 'x', metadata: { source: 'a.pdf', pages: [1, 2], authors: [{ name: 'ann' }] } };
    expect(checkRows(table, batch(meta), limits)[0].metadata).toEqual(meta);
  });

  it('refuses null on /v1 (400 naming the path) and allows it when asked', () => {
    const err = failure(() => checkRows(table, batch({ a: 1 }, { a: { b: [null] } }), limits));
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'rows[1].metadata.a.b[0]', details: { ids: ['r1'] } });
    expect(checkRows(table, batch({ a: { b: [null] }, c: null }), limits, { allowNull: true })[0].metadata).toEqual({
      a: { b: [null] },
      c: null,
    });
  });

  it('refuses objects nested deeper than 8, naming the path', () => {
    let deep: Record<string, unknown> = { x: 1 };
    for (let d = 0; d < 8; d++) deep = { o: deep }; // 9 objects with the metadata
    const err = failure(() => checkRows(table, batch(deep), { maxBytes: 10_000, maxKeys: 100 }));
    expect(err).toMatchObject({ code: 'parameter_invalid', param: `rows[0].metadata${'.o'.repeat(8)}` });
  });

  it('counts every key of the tree against VECTOR_METADATA_MAX_KEYS', () => {
    const meta = { a: { b: 1, c: 2, d: { e: 3, f: 4, g: 5, h: 6, i: 7 } }, j: [{ k: 1 }] }; // 11 keys
    const err = failure(() => checkRows(table, batch(meta), limits));
    expect(err).toMatchObject({ code: 'metadata_too_large', param: 'rows[0].metadata' });
    expect(err.message).toContain('counted over the whole tree');
  });
});

describe('mergeMetadata (/v1 PATCH, JSON Merge Patch)', () => {
  const stored = { a: { b: 1, c: 2 }, keep: 'x', arr: [1] };

  it('merges nested objects recursively, null removing a key at any level', () => {
    expect(mergeMetadata(stored, { a: { b: null, d: 3 }, keep: null, arr: [2] }, limits)).toEqual({
      a: { c: 2, d: 3 },
      arr: [2],
    });
    expect(stored).toEqual({ a: { b: 1, c: 2 }, keep: 'x', arr: [1] }); // not changed in place
  });

  it('an object replaces a value that is not one (its nulls dropped)', () => {
    expect(mergeMetadata(stored, { keep: { y: 1, z: null } }, limits)).toEqual({ a: { b: 1, c: 2 }, keep: { y: 1 }, arr: [1] });
  });

  it('refuses null inside arrays, too-deep objects and values over the limits', () => {
    expect(failure(() => mergeMetadata(stored, { arr: [null] }, limits))).toMatchObject({
      code: 'parameter_invalid',
      param: 'metadata.arr[0]',
    });
    let deep: Record<string, unknown> = { x: 1 };
    for (let d = 0; d < 7; d++) deep = { o: deep };
    expect(failure(() => mergeMetadata(stored, { a: deep }, limits))).toMatchObject({ code: 'parameter_invalid' });
    expect(failure(() => mergeMetadata(stored, { big: 'x'.repeat(1000) }, limits))).toMatchObject({ code: 'metadata_too_large' });
  });
});

describe('setPayloadKeys and deletePayloadKeys (the Qdrant API)', () => {
  const current: Metadata = { a: { b: 1, c: 2 }, 'a.b': 'lit', list: [{ b: 1, c: 1 }, { b: 2 }], keep: true };

  it('set: top-level keys replaced (shallow), null kept as a value', () => {
    expect(setPayloadKeys(current, { a: { z: 1 }, n: null }, limits)).toEqual({ ...current, a: { z: 1 }, n: null });
    expect(failure(() => setPayloadKeys(current, { big: 'x'.repeat(1000) }, limits))).toMatchObject({
      code: 'metadata_too_large',
    });
    expect(failure(() => setPayloadKeys(current, { bad: Number.NaN }, limits))).toMatchObject({
      code: 'parameter_invalid',
      param: 'payload.bad',
    });
  });

  it('delete: top-level keys, dotted paths (nested, literal, through arrays of objects)', () => {
    expect(deletePayloadKeys(current, ['keep'], limits)).toEqual({ a: { b: 1, c: 2 }, 'a.b': 'lit', list: current.list });
    expect(deletePayloadKeys(current, ['a.b'], limits)).toEqual({ a: { c: 2 }, list: current.list, keep: true });
    expect(deletePayloadKeys(current, ['list[].b', 'nothing.here'], limits)).toEqual({
      ...current,
      list: [{ c: 1 }, {}],
    });
    expect(current.list).toEqual([{ b: 1, c: 1 }, { b: 2 }]); // not changed in place
  });
});

describe('toFilter', () => {
  it('names the path of an unknown operator in the 400', () => {
    expect(failure(() => toFilter({ 'a.b': { $regex: 'x' } }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'filter.a.b.$regex',
    });
    expect(failure(() => toFilter({ $nor: [] }))).toMatchObject({ code: 'parameter_invalid', param: 'filter.$nor' });
  });
});
