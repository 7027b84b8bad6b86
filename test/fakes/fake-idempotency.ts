import { IdempotentRequest, Prisma, type StoredResponse } from '@app/platform';

/** The response each statement of a fake IdempotentRequest's `store` stands for. */
const responses = new WeakMap<Prisma.Sql, StoredResponse>();

/**
 * A real IdempotentRequest (the claim the interceptor hands a service) whose `store` builds
 * a stand-in statement instead of IdempotencyService's UPDATE: FakeTransactionRunner calls
 * the completion hook at commit and records, with `storedResponseOf`, the StoredResponse it
 * would have stored (`run.storedResponse`), so a spec checks what a retry would replay.
 */
export function fakeIdempotency(
  successStatus = 201,
  { scope = 'scope_fake', id = 'idem_fake' }: { scope?: string; id?: string } = {},
): IdempotentRequest {
  return new IdempotentRequest(scope, id, successStatus, (response) => {
    const statement = Prisma.sql`SELECT ${JSON.stringify(response)}::jsonb AS stored_response`;
    responses.set(statement, response);
    return statement;
  });
}

/** The response a fake IdempotentRequest's statement stores (undefined for any other statement). */
export function storedResponseOf(statement: Prisma.Sql): StoredResponse | undefined {
  return responses.get(statement);
}
