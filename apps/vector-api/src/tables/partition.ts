/**
 * Which partition owns a table when vector-api is split across groups of instances
 * (`VECTOR_PARTITION`, docs/scaling.md). The answer is exactly what NGINX computes for
 *
 *     split_clients "$vector_table" $vector_group { 50% p1; * p2; }
 *
 * with the parts `splitClientsParts(n)` lists, so the proxy and the instances agree on every
 * name without talking to each other. NGINX (src/http/modules/ngx_http_split_clients_module.c):
 * - hashes the value's bytes with MurmurHash2, seed 0 (`ngx_murmur_hash2`, src/core/ngx_murmurhash.c);
 * - reads each percentage with two decimals (`ngx_atofp(…, 2)`): hundredths of a percent,
 *   10000 = 100 %;
 * - turns the parts into cumulative upper bounds on the 32-bit hash, adding for each part
 *   `⌊percent × 0xffffffff / 10000⌋` (64-bit arithmetic, each part rounded down on its own);
 *   `*` (and, since 1.31.2, a part that brings the total to exactly 100 %) takes the rest;
 * - picks the first part whose bound is above the hash.
 * The generated configuration ends with `*`, which NGINX versions before and after 1.31.2
 * treat alike.
 */

/** This instance's share of the tables: partition `index` of `count` (1-based). */
export interface Partition {
  readonly index: number;
  readonly count: number;
}

export const MAX_PARTITIONS = 64;

/** `i/n` with 1 ≤ i ≤ n ≤ 64, no spaces or signs; undefined otherwise. */
export function parsePartition(text: string): Partition | undefined {
  const match = /^([1-9][0-9]?)\/([1-9][0-9]?)$/.exec(text);
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index <= count && count <= MAX_PARTITIONS ? { index, count } : undefined;
}

export function formatPartition(p: Partition): string {
  return `${p.index}/${p.count}`;
}

const M = 0x5bd1e995;

/** ngx_murmur_hash2: MurmurHash2 (Austin Appleby), seed 0, little-endian 4-byte blocks. */
export function murmurHash2(data: Uint8Array): number {
  let len = data.length;
  let h = len >>> 0;
  let i = 0;
  while (len >= 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
    i += 4;
    len -= 4;
  }
  // NGINX's `switch (len)` whose cases 3, 2 and 1 fall through
  if (len >= 3) h ^= data[i + 2] << 16;
  if (len >= 2) h ^= data[i + 1] << 8;
  if (len >= 1) h = Math.imul(h ^ data[i], M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h >>> 0;
}

/**
 * The shares of `n` equal partitions in hundredths of a percent (what `split_clients` reads),
 * summing to 10000: partition k ends at ⌊10000·k/n⌋. Exactly equal when n divides 10000,
 * otherwise to within 0.01 % (n = 3: 33.33 %, 33.33 %, 33.34 %). Ending each partition at a
 * rounded boundary, rather than giving each a rounded share, makes the boundaries of n
 * partitions boundaries of 2n too, so doubling n splits every partition in two in place
 * (docs/scaling.md, "Adding a group").
 */
export function splitClientsParts(n: number): number[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARTITIONS) throw new RangeError(`partitions must be 1 to ${MAX_PARTITIONS}`);
  const end = (k: number): number => Math.floor((10000 * k) / n);
  return Array.from({ length: n }, (_, i) => end(i + 1) - end(i));
}

/** The `split_clients` lines of n partitions, the last one `*`: `33.33% p1;`. */
export function splitClientsLines(n: number, value: (partition: number) => string): string[] {
  return splitClientsParts(n).map((share, i) => {
    const percent = i === n - 1 ? '*' : `${Math.floor(share / 100)}.${String(share % 100).padStart(2, '0')}%`;
    return `${percent} ${value(i + 1)};`;
  });
}

const bounds = new Map<number, bigint[]>();

/** NGINX's upper bound of each part but the last (which takes the rest), in its 64-bit arithmetic. */
function boundsOf(n: number): bigint[] {
  let cached = bounds.get(n);
  if (!cached) {
    let last = 0n;
    cached = splitClientsParts(n)
      .slice(0, -1)
      .map((share) => (last += (BigInt(share) * 0xffffffffn) / 10000n));
    bounds.set(n, cached);
  }
  return cached;
}

const utf8 = new TextEncoder();

/** The part (1 to n) split_clients picks for a value of this 32-bit hash. */
export function partitionOfHash(hash: number, n: number): number {
  const h = BigInt(hash);
  const upper = boundsOf(n);
  for (let i = 0; i < upper.length; i++) if (h < upper[i]) return i + 1;
  return n;
}

/** The partition (1 to n) that owns `tableName`: the part NGINX's split_clients picks for it (UTF-8 bytes hashed). */
export function partitionOf(tableName: string, n: number): number {
  return partitionOfHash(murmurHash2(utf8.encode(tableName)), n);
}

/** Whether an instance of `partition` holds `tableName`; every table when unpartitioned. */
export function ownsTable(partition: Partition | undefined, tableName: string): boolean {
  return partition === undefined || partitionOf(tableName, partition.count) === partition.index;
}
