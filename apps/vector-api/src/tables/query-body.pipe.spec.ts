import 'reflect-metadata';
import { DomainError, PlatformValidationPipe } from '@app/platform';
import fc from 'fast-check';
import { QueryDto } from './dto/vectors.dto';
import { checkQueryBody, QueryBodyPipe } from './query-body.pipe';

/** What a pipe answers: the DTO (class and plain copy), or its error's code, message and param. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const dto = await run();
    return { ok: dto instanceof QueryDto, dto: JSON.parse(JSON.stringify(dto)) as unknown, queries: queryClasses(dto) };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const { code } = err as DomainError<string>;
    return { code, message: err.message, param: err.param };
  }
}

/** A deep copy with this realm's prototypes (structuredClone's objects fail the pipe's plain-object check under Jest). */
function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)])) as T;
  return v;
}

const queryClasses = (dto: unknown): string[] => ((dto as QueryDto).queries ?? []).map((q) => (q as object).constructor.name);

/** What QueryBodyPipe did before vectors were set aside: its own checks, then the platform's pipe on the whole body. */
const reference = new PlatformValidationPipe();
const refTransform = async (body: unknown): Promise<unknown> => {
  const copy = clone(body) as Record<string, unknown>;
  checkQueryBody(copy);
  return reference.transform(copy, { type: 'body', metatype: QueryDto, data: undefined });
};

const element = fc.oneof(
  { weight: 20, arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('1', 'a\u0000', null, true, [1], { x: 1 }, 1e39, -0) },
);
const vector = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 6 }) },
  { weight: 3, arbitrary: fc.array(element, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('1,2', 3, null, { 0: 1 }) },
);
const n = fc.oneof(fc.integer({ min: -1, max: 1001 }), fc.constantFrom<unknown>('3', 2.5, null));
const item = fc.record(
  { vector, n, filter: fc.constantFrom<unknown>({ a: 1 }, 'x', null), extra: fc.constant(1) },
  { requiredKeys: [] },
);
const body = fc.record(
  {
    vector,
    n,
    filter: fc.constantFrom<unknown>({ genre: 'jazz' }, [], 'x'),
    queries: fc.oneof(fc.array(item, { maxLength: 4 }), fc.constantFrom<unknown>('q', [1, 'x'])),
    index: fc.constantFrom<unknown>('hnsw', 'flat', 'lsh'),
    include_values: fc.constantFrom<unknown>(true, 'yes'),
    include_metadata: fc.constantFrom<unknown>(false, 0),
    wat: fc.constant(1),
  },
  { requiredKeys: [] },
);

describe('QueryBodyPipe', () => {
  const pipe = new QueryBodyPipe();

  it("answers every body as the platform's pipe on the whole body does: same DTO, or the same error", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const sent = clone(b);
        const got = await outcome(() => pipe.transform(sent));
        const want = await outcome(() => refTransform(b));
        expect(got).toEqual(want);
        // the request's body is not changed
        expect(sent).toEqual(b);
      }),
      { numRuns: 3000 },
    );
  });

  it('hands the service the vectors as sent, without walking them in the platform pipe', async () => {
    const v = Array.from({ length: 768 }, (_, i) => i / 7);
    const dto = await pipe.transform({ vector: v, n: 3 });
    expect(dto.vector).toBe(v);
    // a vector with anything else is left to the platform's pipe (and then to the service's check, as before)
    const batch = await pipe.transform({
      queries: [
        { vector: v, n: 1 },
        { vector: [1, 'x'], n: 1 },
      ],
    });
    expect(batch.queries?.[0].vector).toBe(v);
    expect(batch.queries?.[1].vector).toEqual([1, 'x']);
  });
});
