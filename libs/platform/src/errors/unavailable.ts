/**
 * Recognises "a dependency cannot be reached right now" among the errors Prisma (over
 * @prisma/adapter-pg), pg, pg-pool and ioredis throw, so the error filter answers 503
 * `service_unavailable` (retry later) instead of a 500 that reads like a bug.
 */

/** Socket failures: refused, reset, timed out, unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * Prisma: can't reach (P1001), timed out (P1002, P1008), connection closed (P1017), pool
 * timeout (P2024), transaction could not start or expired while waiting (P2028), too many
 * connections (P2037).
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);

/** Driver adapter error kinds (the `cause` of Prisma's DriverAdapterError). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** PostgreSQL SQLSTATEs: connection exceptions (08xxx), shutdown / cannot connect now (57P01-57P03), too many connections. */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;

/** pg / pg-pool and ioredis (offline queue disabled) errors that carry no code. */
const MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Connection ended unexpectedly|Stream isn't writeable and enableOfflineQueue|^Connection is closed\.$/;

function isUnavailableNode(e: Record<string, unknown>): boolean {
  const code = e['code'];
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || PRISMA_CODES.has(code) || SQLSTATE.test(code))) return true;
  const original = e['originalCode'];
  if (typeof original === 'string' && SQLSTATE.test(original)) return true;
  if (typeof e['kind'] === 'string' && ADAPTER_KINDS.has(e['kind'])) return true;
  if (e['name'] === 'PrismaClientInitializationError' || e['name'] === 'MaxRetriesPerRequestError') return true;
  return typeof e['message'] === 'string' && MESSAGES.test(e['message']);
}

/** True when `error` (or anything it wraps) says PostgreSQL or Redis is unreachable or overloaded. */
export function isDependencyUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 20) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const node = e as Record<string, unknown>;
    if (isUnavailableNode(node)) return true;
    queue.push(node['cause']);
    const meta = node['meta'];
    if (typeof meta === 'object' && meta !== null) queue.push((meta as Record<string, unknown>)['driverAdapterError']);
  }
  return false;
}
