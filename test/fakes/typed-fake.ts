/**
 * Typing for hand-written unit-test fakes (one helper for every app's fakes). A class with
 * private members is nominal in TypeScript: no object that is not an instance can be
 * assigned to it, however complete. A fake implements the class's public surface instead —
 * every public member, checked by the compiler — and `fake` hands it to code typed with the
 * class (a service's constructor).
 */

/** The public members of T (private and protected members are not keys of T). */
export type Surface<T> = { [K in keyof T]: T[K] };

/** `implementation` as a T: it must implement every public member of T with T's types. */
export function fake<T>(implementation: NoInfer<Surface<T>>): T {
  // No cast: while T is generic TypeScript relates { [K in keyof T]: T[K] } to T. The check
  // that matters happens at each call, against the concrete class's public members.
  return implementation;
}

/**
 * For a third-party class the code under test touches a few members of (BullMQ's Queue and
 * Job behind TypedQueue): only the members given exist at run time.
 */
export function partialFake<T>(implementation: Partial<Surface<T>>): T {
  return implementation as T;
}

/**
 * A stand-in for a value the code under test only passes along and never uses itself
 * (a transaction client handed from a fake runner to a fake repository). Each call gives a
 * new object, so fakes can check by identity that they were given the right one.
 */
export function opaque<T extends object>(name: string): T {
  const token: object = Object.freeze({ [Symbol.toStringTag]: name });
  return token as T;
}
