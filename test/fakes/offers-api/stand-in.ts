/**
 * Typing fakes as the classes they stand in for, without `any`.
 *
 * Services depend on repository classes (Nest injects by class). A class with a private
 * member (`private readonly prisma`) cannot be implemented by another class, so a fake
 * implements the class's public members, `Public<T>`, and `standIn` hands it over as `T`:
 * every public method is checked against the real signature, nothing else is claimed.
 */
export type Public<T> = { [K in keyof T]: T[K] };

export function standIn<T>(fake: Public<T>): T {
  // For a generic T, TypeScript reads Public<T> as T; for a concrete class it does not
  // (the private members are missing), which is why callers need this function.
  return fake;
}

/**
 * For a third-party class the code under test touches a few members of (BullMQ's Queue
 * and Job behind TypedQueue): only the members given exist at run time.
 */
export function partialStandIn<T>(fake: Partial<Public<T>>): T {
  return fake as T;
}
