import { badRequest } from './qdrant-error';

/**
 * Point ids of the Qdrant-compatible API (docs/qdrant.md, "Ids"): an unsigned integer N is
 * stored as the id of its decimal digits ("42") and shown back as the JSON integer; a UUID
 * (hyphenated, any case) is stored lowercase and shown so. Any other stored id (written
 * through /v1) is shown as the string it is.
 */
export type PointId = number | string;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^(0|[1-9][0-9]{0,15})$/;

/**
 * A short description of a refused id for the message: never a walk of what the client sent
 * (a 10,000-deep array overflowed JSON.stringify: a 500 found by test/fuzz), never all of a long string.
 */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return Array.isArray(value) ? 'a list' : 'an object';
}

/** The stored id of a Qdrant point id, or Qdrant's 400. */
export function toStoredId(value: unknown, param: string): string {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return String(value);
    throw badRequest(
      `${param}: ${shown(value)} is not a valid point ID, valid values are either an unsigned integer (up to 2^53 - 1 here) or a UUID`,
    );
  }
  if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
  throw badRequest(`${param}: ${shown(value)} is not a valid point ID, valid values are either an unsigned integer or a UUID`);
}

/** A list of point ids as stored ids. */
export function toStoredIds(value: unknown, param: string): string[] {
  if (!Array.isArray(value)) throw badRequest(`${param} must be a list of point ids`);
  return value.map((v, i) => toStoredId(v, `${param}[${i}]`));
}

/** How a stored id is shown: the integer it spells (no leading zero, ≤ 2^53 − 1), else the string. */
export function toPointId(stored: string): PointId {
  if (DIGITS.test(stored)) {
    const n = Number(stored);
    if (Number.isSafeInteger(n)) return n;
  }
  return stored;
}
