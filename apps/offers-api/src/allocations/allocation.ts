/**
 * Share allocation for an oversubscribed offer (platform contract: Offers service
 * decisions, Allocation). Pure functions: no I/O, no clock, no randomness.
 *
 * - Shares are whole: every quota is rounded down, and the leftover shares (at most one
 *   per applicant) go to the largest remainders; equal remainders go to the earlier
 *   indication, then to the smaller id, so the result never depends on input order.
 * - Nobody gets more than they asked for and the total never exceeds what is available.
 * Arithmetic is in bigint: requests × available can exceed 2^53.
 */

export type AllocationPolicy = 'pro_rata' | 'min_then_pro_rata';
export const ALLOCATION_POLICIES: readonly AllocationPolicy[] = ['pro_rata', 'min_then_pro_rata'];

export interface ShareRequest {
  /** unique within one run (the indication id) */
  readonly id: string;
  /** whole shares asked for, ≥ 0 */
  readonly shares: number;
  /** the indication's creation time in ms since the epoch; earlier wins ties */
  readonly submittedAt: number;
}

export interface AllocationParams {
  readonly policy: AllocationPolicy;
  readonly sharesAvailable: number;
  /** min_then_pro_rata only: every applicant first gets up to this many shares */
  readonly minimumShares?: number;
}

/** Shares per request id, for every request (0 included). */
export type ShareAllocation = ReadonlyMap<string, number>;

function byTieBreak(a: ShareRequest, b: ShareRequest): number {
  if (a.submittedAt !== b.submittedAt) return a.submittedAt - b.submittedAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function assertWhole(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${n}`);
}

/**
 * Pro rata: quota_i = requested_i × available / Σ requested, rounded down; leftovers by
 * largest remainder. Everyone is filled in full when demand ≤ supply.
 */
export function allocateProRata(requests: readonly ShareRequest[], sharesAvailable: number): Map<string, number> {
  assertWhole('sharesAvailable', sharesAvailable);
  const result = new Map<string, number>();
  let demand = 0n;
  for (const r of requests) {
    assertWhole(`shares of ${r.id}`, r.shares);
    if (result.has(r.id)) throw new Error(`duplicate request id ${r.id}`);
    result.set(r.id, 0);
    demand += BigInt(r.shares);
  }
  const available = BigInt(sharesAvailable);
  if (demand <= available) {
    for (const r of requests) result.set(r.id, r.shares);
    return result;
  }
  // demand > available ≥ 0, so demand > 0.
  const remainders: Array<{ request: ShareRequest; remainder: bigint }> = [];
  let given = 0n;
  for (const r of requests) {
    const scaled = BigInt(r.shares) * available;
    const base = scaled / demand;
    given += base;
    result.set(r.id, Number(base));
    remainders.push({ request: r, remainder: scaled % demand });
  }
  // Σ quotas = available exactly, so the leftover equals the number of shares the
  // fractional parts add up to: fewer than the count of non-zero remainders.
  let leftover = Number(available - given);
  remainders.sort((a, b) =>
    a.remainder === b.remainder ? byTieBreak(a.request, b.request) : a.remainder > b.remainder ? -1 : 1,
  );
  for (const { request, remainder } of remainders) {
    if (leftover === 0 || remainder === 0n) break;
    result.set(request.id, (result.get(request.id) ?? 0) + 1);
    leftover--;
  }
  return result;
}

/**
 * Minimum then pro rata: each applicant first gets min(requested, minimum); what is left
 * is shared pro rata over the rest of each request. When the minimums alone exceed
 * supply, the supply is shared pro rata over the minimums (nobody is favoured by
 * arrival time beyond the tie-break).
 */
export function allocateMinThenProRata(
  requests: readonly ShareRequest[],
  sharesAvailable: number,
  minimumShares: number,
): Map<string, number> {
  assertWhole('minimumShares', minimumShares);
  const firsts = requests.map((r) => ({ ...r, shares: Math.min(r.shares, minimumShares) }));
  const firstTotal = firsts.reduce((sum, r) => sum + BigInt(r.shares), 0n);
  if (firstTotal >= BigInt(sharesAvailable)) return allocateProRata(firsts, sharesAvailable);
  const rest = allocateProRata(
    requests.map((r) => ({ ...r, shares: r.shares - Math.min(r.shares, minimumShares) })),
    sharesAvailable - Number(firstTotal),
  );
  const result = new Map<string, number>();
  for (const f of firsts) result.set(f.id, f.shares + (rest.get(f.id) ?? 0));
  return result;
}

export function allocate(requests: readonly ShareRequest[], params: AllocationParams): ShareAllocation {
  switch (params.policy) {
    case 'pro_rata':
      return allocateProRata(requests, params.sharesAvailable);
    case 'min_then_pro_rata':
      if (params.minimumShares === undefined) throw new Error('min_then_pro_rata needs minimumShares');
      return allocateMinThenProRata(requests, params.sharesAvailable, params.minimumShares);
  }
}
