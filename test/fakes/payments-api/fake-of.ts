import type { PrismaTx } from '@app/platform';

/**
 * The public members of a class: what a fake of it implements. A class with private fields
 * is nominal in TypeScript, so an object literal or a fake class is never assignable to it.
 */
export type PublicOf<T> = { [K in keyof T]: T[K] };

/**
 * Hands a fake to code typed against the real class (a service's constructor). The fake
 * must implement every public member with the real signatures (checked at the call:
 * `asReal<PaymentsRepository>(fakes.payments)`); the class's private state is the only
 * thing it may leave out.
 */
export function asReal<T>(fake: PublicOf<T>): T {
  return fake;
}

/**
 * An opaque transaction handle for FakeTransactionRunner: fakes compare it by identity and
 * never call Prisma on it (a service that did would fail on the missing model delegates).
 */
export function fakeTxHandle(seq: number): PrismaTx {
  const handle: object = Object.freeze(Object.defineProperty({}, 'fakeTransaction', { value: seq, enumerable: true }));
  return handle as PrismaTx;
}
