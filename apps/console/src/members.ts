/**
 * A union's members as a list in the console's chosen order, checked against the union: a member
 * missing from the list, or a value the union lacks, is a compile error. The unions come from the
 * generated clients (`clients/*\/schema.d.ts`), so a value the API adds or drops breaks the typecheck.
 *
 * `membersOf<Status>()(['a', 'b'] as const)`
 */
export const membersOf =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> })): L =>
    list;
