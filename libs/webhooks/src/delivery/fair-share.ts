/**
 * Fair delivery within one worker process (docs/webhooks.md, "Fair delivery"): at most
 * `perEndpoint` attempts in flight to one endpoint and `perOwner` for one owner, so an
 * owner whose receivers hang holds only its share of the worker's slots. A delivery that
 * finds no room is parked (its job moved to the delayed set without an attempt, its id in
 * a line in Redis: parking-lines.ts) and woken by the next release of a slot of its
 * endpoint or owner, in any process.
 */

/** Whose slots a delivery takes: its endpoint and the endpoint's owner (the owner type is the queue's). */
export interface DeliveryRoute {
  readonly endpointId: string;
  readonly ownerId: string;
}

export interface FairShareLimits {
  readonly perEndpoint: number;
  readonly perOwner: number;
}

/** Which limit kept a delivery from starting. */
export type Blocker = 'endpoint' | 'owner';

/** A taken slot; `release` is idempotent. */
export interface Lease {
  release(): void;
}

/** In-flight attempts of this process, by endpoint and by owner, with their start times. */
export class FairShare {
  /** Start times (ms) of the attempts in flight, by endpoint id and by owner id. */
  private readonly endpoints = new Map<string, number[]>();
  private readonly owners = new Map<string, number[]>();
  private readonly waiters: Waiter[] = [];
  private total = 0;

  constructor(
    readonly limits: FairShareLimits,
    /** Called after every release (the worker wakes the next parked delivery of the route). */
    private readonly onRelease: (route: DeliveryRoute) => void = () => undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.total;
  }

  /** Deliveries waiting in this process for a slot (at most `localWaitMs` each). */
  get waiting(): number {
    return this.waiters.length;
  }

  inFlightOf(route: DeliveryRoute): { endpoint: number; owner: number } {
    return {
      endpoint: this.endpoints.get(route.endpointId)?.length ?? 0,
      owner: this.owners.get(route.ownerId)?.length ?? 0,
    };
  }

  /** Free slots for `route` now (0 when none). */
  room(route: DeliveryRoute): number {
    const used = this.inFlightOf(route);
    return Math.max(0, Math.min(this.limits.perEndpoint - used.endpoint, this.limits.perOwner - used.owner));
  }

  /** Free slots of an owner now (0 when none). */
  ownerRoom(ownerId: string): number {
    return Math.max(0, this.limits.perOwner - (this.owners.get(ownerId)?.length ?? 0));
  }

  /** Takes a slot for `route`, or says which limit is reached. */
  tryAcquire(route: DeliveryRoute): Lease | Blocker {
    const used = this.inFlightOf(route);
    if (used.endpoint >= this.limits.perEndpoint) return 'endpoint';
    if (used.owner >= this.limits.perOwner) return 'owner';
    const started = this.now();
    push(this.endpoints, route.endpointId, started);
    push(this.owners, route.ownerId, started);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        pull(this.endpoints, route.endpointId, started);
        pull(this.owners, route.ownerId, started);
        this.total--;
        this.grantWaiter();
        // and one parked delivery comes back, to take the slot or wait for the next one here
        this.onRelease(route);
      },
    };
  }

  /**
   * Takes a slot for `route`, waiting for one in this process up to `maxWaitMs` when the
   * attempts holding the limit are young (a busy, fast receiver: a slot frees within
   * moments, and waiting here is cheaper than a trip through the delayed set) and fewer
   * than the limit already wait for it (the rest of a burst is parked at once, so that the
   * deliveries of others queued behind it are reached soon). Otherwise — a slow or hanging
   * receiver, or the wait ran out — it says which limit is reached.
   */
  acquire(route: DeliveryRoute, maxWaitMs: number): Promise<Lease | Blocker> {
    const taken = this.tryAcquire(route);
    if (typeof taken !== 'string' || maxWaitMs <= 0) return Promise.resolve(taken);
    const byEndpoint = taken === 'endpoint';
    const holders = byEndpoint ? this.endpoints.get(route.endpointId) : this.owners.get(route.ownerId);
    const oldest = holders?.[0];
    if (oldest === undefined || this.now() - oldest > maxWaitMs) return Promise.resolve(taken);
    const queued = this.waiters.filter((w) =>
      byEndpoint
        ? w.blocker === 'endpoint' && w.route.endpointId === route.endpointId
        : w.blocker === 'owner' && w.route.ownerId === route.ownerId,
    ).length;
    if (queued >= (byEndpoint ? this.limits.perEndpoint : this.limits.perOwner)) return Promise.resolve(taken);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        route,
        blocker: taken,
        grant: (lease) => {
          clearTimeout(timer);
          resolve(lease);
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(this.tryAcquire(route));
      }, maxWaitMs);
      this.waiters.push(waiter);
    });
  }

  /** Hands a freed slot to the oldest local waiter that fits; false when none does. */
  private grantWaiter(): boolean {
    for (const [i, waiter] of this.waiters.entries()) {
      const lease = this.tryAcquire(waiter.route);
      if (typeof lease === 'string') continue;
      this.waiters.splice(i, 1);
      waiter.grant(lease);
      return true;
    }
    return false;
  }
}

interface Waiter {
  readonly route: DeliveryRoute;
  readonly blocker: Blocker;
  grant(lease: Lease): void;
}

function push(map: Map<string, number[]>, key: string, started: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [started]);
  else list.push(started); // start times only grow: the list stays sorted, oldest first
}

function pull(map: Map<string, number[]>, key: string, started: number): void {
  const list = map.get(key);
  if (list === undefined) return;
  const i = list.indexOf(started);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

/**
 * How long a parked job waits in the delayed set if nothing wakes it (Redis lost its line,
 * or its endpoint was deleted meanwhile): `maxMs` (WEBHOOK_LOCK_DURATION_MS, the time a dead worker's active deliveries
 * take to be taken over too), jittered down by up to half so that parked jobs do not come
 * back together. Long on purpose: the next release of a slot of its endpoint or owner wakes
 * it, and a short fallback would fetch every parked job again and again while its endpoint
 * hangs.
 */
export function fallbackDelayMs(maxMs: number, random: () => number = Math.random): number {
  return Math.round(maxMs * (0.5 + random() / 2));
}
