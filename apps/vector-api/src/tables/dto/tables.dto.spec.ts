import { PlatformValidationPipe } from '@app/platform';
import { rejection } from '../../../../../test/fakes/rejection';
import { VectorConfig } from '../../config';
import { InsertBodyPipe, InsertParsePool } from '../insert-body.pipe';
import { CreateTableDto } from './table.dto';
import { DeleteVectorsDto, QueryDto } from './vectors.dto';

// The limits checked before TablesService is called: the DTOs under the platform's
// validation pipe (InsertBodyPipe for inserts), as the controllers run them.
const pipe = new PlatformValidationPipe();
const body = (metatype: new () => object, value: unknown): Promise<unknown> =>
  pipe.transform(value, { type: 'body', metatype, data: undefined });

describe('CreateTableDto', () => {
  it.each(['a', 'docs_2024-v1', 'x'.repeat(64), 'Docs', 'a.b', 'v1.2-Docs_x', '.a'])('accepts the name %s', async (name) => {
    await expect(body(CreateTableDto, { name, dimension: 3 })).resolves.toMatchObject({ name });
  });

  it.each(['', 'a b', 'ü', '.', '..', 'a/b', 'x'.repeat(65)])('refuses the name %j', async (name) => {
    expect(await rejection(body(CreateTableDto, { name, dimension: 3 }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'name',
    });
  });

  it.each([1, 4096])('accepts dimension %d', async (dimension) => {
    await expect(body(CreateTableDto, { name: 'a', dimension })).resolves.toMatchObject({ dimension });
  });

  it.each([0, -1, 4097, 1.5, '3'])('refuses dimension %j', async (dimension) => {
    expect(await rejection(body(CreateTableDto, { name: 'a', dimension }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'dimension',
    });
  });

  it('accepts the three index kinds and nothing else', async () => {
    for (const index of ['flat', 'ivf', 'hnsw'])
      await expect(body(CreateTableDto, { name: 'a', dimension: 2, index })).resolves.toBeDefined();
    expect(await rejection(body(CreateTableDto, { name: 'a', dimension: 2, index: 'lsh' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'index',
    });
  });
});

describe('QueryDto', () => {
  it.each([1, 1000])('accepts n = %d', async (n) => {
    await expect(body(QueryDto, { vector: [1], n })).resolves.toMatchObject({ n });
  });

  it.each([0, 1001, 2.5])('refuses n = %d', async (n) => {
    expect(await rejection(body(QueryDto, { vector: [1], n }))).toMatchObject({ code: 'parameter_invalid', param: 'n' });
  });

  it('takes an object filter, a whole n, and booleans for include_values and include_metadata', async () => {
    expect(await rejection(body(QueryDto, { vector: [1], n: 1.5 }))).toMatchObject({ code: 'parameter_invalid', param: 'n' });
    expect(await rejection(body(QueryDto, { vector: [1], n: 1, include_values: 'yes' }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'include_values',
    });
    expect(await rejection(body(QueryDto, { queries: [] }))).toMatchObject({ code: 'parameter_invalid', param: 'queries' });
    expect(await rejection(body(QueryDto, { queries: [{ vector: [1] }] }))).toMatchObject({
      code: 'parameter_missing',
      param: 'queries[0].n',
    });
    expect(await rejection(body(QueryDto, { vector: [1], n: 1, filter: [] }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'filter',
    });
  });
});

describe('insert and delete bodies', () => {
  const config = new VectorConfig();
  const insertPipe = new InsertBodyPipe(config, new InsertParsePool(config));
  const rowsOf = (count: number, id = (i: number): string => `r${i}`): unknown => ({
    rows: Array.from({ length: count }, (_, i) => ({ id: id(i), embedding: [i, 1] })),
  });

  it('takes 1 to 1000 rows per insert, embeddings untouched', async () => {
    const dto = await insertPipe.transform(rowsOf(1000));
    expect(dto.rows).toHaveLength(1000);
    expect(dto.rows[999]?.embedding).toEqual([999, 1]);
    expect(await rejection(insertPipe.transform(rowsOf(1001)))).toMatchObject({ code: 'parameter_invalid', param: 'rows' });
    expect(await rejection(insertPipe.transform(rowsOf(0)))).toMatchObject({ code: 'parameter_invalid', param: 'rows' });
  });

  it('takes ids of 1 to 512 characters', async () => {
    await expect(insertPipe.transform(rowsOf(1, () => 'x'.repeat(512)))).resolves.toBeDefined();
    expect(await rejection(insertPipe.transform(rowsOf(1, () => 'x'.repeat(513))))).toMatchObject({
      code: 'parameter_invalid',
      param: 'rows[0].id',
    });
    expect(await rejection(insertPipe.transform(rowsOf(1, () => '')))).toMatchObject({
      code: 'parameter_invalid',
      param: 'rows[0].id',
    });
  });

  it('takes 1 to 1000 ids per delete', async () => {
    const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `r${i}`);
    await expect(body(DeleteVectorsDto, { ids: ids(1000) })).resolves.toBeDefined();
    expect(await rejection(body(DeleteVectorsDto, { ids: ids(1001) }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'ids',
    });
    expect(await rejection(body(DeleteVectorsDto, { ids: [] }))).toMatchObject({ code: 'parameter_invalid', param: 'ids' });
  });
});
