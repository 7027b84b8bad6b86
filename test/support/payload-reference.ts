/**
 * How Qdrant reads a payload, written from its documentation for the filter references of
 * the engine's and the Qdrant adapter's property tests (not from the engine's code): the
 * payload flattened into every (dotted path, value) pair it holds, arrays met on the way
 * flattened; a field's values are the pairs of its path (`a[].b` is `a.b`).
 */

/** A payload value: JSON without undefined. */
export type PayloadValue = string | number | boolean | null | PayloadValue[] | { [key: string]: PayloadValue };

/** Every (path, value) of the payload: keys joined by dots, arrays met on the way flattened. */
export function payloadPairs(
  payload: PayloadValue,
  prefix: string | undefined = undefined,
  out: Array<[string, PayloadValue]> = [],
): Array<[string, PayloadValue]> {
  if (Array.isArray(payload)) {
    for (const element of payload) if (element !== null && typeof element === 'object') payloadPairs(element, prefix, out);
  } else if (payload !== null && typeof payload === 'object') {
    for (const [key, value] of Object.entries(payload)) {
      const path = prefix === undefined ? key : `${prefix}.${key}`;
      out.push([path, value]);
      payloadPairs(value, path, out);
    }
  }
  return out;
}

/** A filter key as a path: `[]` after a segment dropped. */
export const normalizeKey = (key: string): string =>
  key
    .split('.')
    .map((s) => (s.endsWith('[]') ? s.slice(0, -2) : s))
    .join('.');

/** The values the payload holds at the key's path (none for a missing payload or path). */
export function valuesAt(payload: PayloadValue | undefined, key: string): PayloadValue[] {
  if (payload === undefined) return [];
  const path = normalizeKey(key);
  return payloadPairs(payload)
    .filter(([p]) => p === path)
    .map(([, v]) => v);
}

/** Qdrant's check over values: an array value's elements are checked, one level. */
export const anyElement = (values: readonly PayloadValue[], check: (v: PayloadValue) => boolean): boolean =>
  values.some((v) => (Array.isArray(v) ? v.some(check) : check(v)));
