import { registerErrorCodes } from '@app/platform';
import { rejection } from '../../../../test/fakes/rejection';
import { tablesServiceWithFakes, type TablesServiceWithFakes } from '../../../../test/fakes/vector-api';
import { VECTOR_ERRORS } from '../errors';
import { partitionOf } from './partition';

// Of two partitions, 'docs_2024-v1' is partition 1's and 'articles' partition 2's
// (partition.spec.ts has them from NGINX's own code); checked here so a change there shows.
/** The calling project. */
const P = { projectId: 'proj_test' };
const MINE = 'docs_2024-v1';
const THEIRS = 'articles';

describe('TablesService with VECTOR_PARTITION=1/2', () => {
  let f: TablesServiceWithFakes;
  beforeAll(() => registerErrorCodes(VECTOR_ERRORS));
  beforeEach(() => {
    f = tablesServiceWithFakes('1/2');
  });
  afterEach(async () => {
    await f.live.onApplicationShutdown();
  });

  it('the names used here are of the partitions they stand for', () => {
    expect([partitionOf(MINE, 2), partitionOf(THEIRS, 2)]).toEqual([1, 2]);
  });

  it("creates another partition's table without holding it: the answer shows it not loaded, with its partition", async () => {
    const dto = await f.service.create(P, { name: THEIRS, dimension: 3 });
    expect(dto).toEqual({
      name: THEIRS,
      dimension: 3,
      index: 'flat',
      metric: 'cosine',
      rows: 0,
      index_status: { state: 'not_loaded', details: { partition: 2 } },
      created_at: '2026-01-02T03:04:05.000Z',
    });
    expect(f.repo.table(THEIRS)).toBeDefined();
    expect(f.live.holds(THEIRS)).toBe(false);
    await f.service.create(P, { name: MINE, dimension: 2 });
    expect(f.live.holds(MINE)).toBe(true);
  });

  it("answers 421 table_not_in_partition on every route of another partition's table, existing or not", async () => {
    await f.service.create(P, { name: THEIRS, dimension: 3 });
    for (const name of [THEIRS, 'a']) {
      const calls = [
        () => f.service.get(P, name),
        () => f.service.insert(P, name, { rows: [{ id: 'x', embedding: [1, 2, 3] }] }),
        () => f.service.query(P, name, { vector: [1, 2, 3], n: 1 }),
        () => f.service.deleteVectors(P, name, { ids: ['x'] }),
      ];
      for (const call of calls) {
        expect(await rejection(call())).toMatchObject({
          code: 'table_not_in_partition',
          status: 421,
          param: 'table',
          message: `Table '${name}' belongs to partition 2/2; this instance serves partition 1/2 (VECTOR_PARTITION). Send its requests through the partition proxy.`,
        });
      }
    }
    expect(f.transactions.committed).toHaveLength(1); // the create only
  });

  it('serves its own tables; a missing one of its own is 404', async () => {
    await f.service.create(P, { name: MINE, dimension: 2 });
    expect(await f.service.insert(P, MINE, { rows: [{ id: 'x', embedding: [1, 0] }] })).toEqual({ inserted: 1 });
    expect((await f.service.query(P, MINE, { vector: [1, 0], n: 1 })).results.map((h) => h.id)).toEqual(['x']);
    expect(await rejection(f.service.get(P, 'ab'))).toMatchObject({ code: 'resource_missing', status: 404 });
  });

  it("lists every table by name, another partition's with its rows counted in the database", async () => {
    await f.service.create(P, { name: THEIRS, dimension: 2 });
    await f.service.create(P, { name: MINE, dimension: 2 });
    await f.service.insert(P, MINE, { rows: [{ id: 'x', embedding: [1, 0] }] });
    const theirs = f.repo.table(THEIRS);
    if (!theirs) throw new Error('not created');
    await f.transactions.run(async (tx) => {
      // written by an instance of partition 2
      const change = await f.repo.nextChange(tx, theirs.id, 3);
      if (!change) throw new Error('no change');
      const embedding = [0, 1];
      await f.repo.createRows(
        tx,
        theirs.id,
        [
          { id: 'a', embedding },
          { id: 'b', embedding },
          { id: 'c', embedding },
        ],
        change.labels,
      );
    });
    const { data } = await f.service.list(P, {});
    expect(data.map((t) => [t.name, t.rows, t.index_status.state])).toEqual([
      [THEIRS, 3, 'not_loaded'],
      [MINE, 1, 'ready'],
    ]);
    expect(data[0]?.index_status.details).toEqual({ partition: 2 });
  });

  it("deletes another partition's table", async () => {
    await f.service.create(P, { name: THEIRS, dimension: 2 });
    expect(await f.service.drop(P, THEIRS)).toEqual({ name: THEIRS, deleted: true });
    expect(f.repo.table(THEIRS)).toBeUndefined();
    expect((await f.service.list(P, {})).data).toEqual([]);
  });
});
