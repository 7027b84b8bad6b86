/**
 * Fair delivery within one worker process (docs/webhooks.md, "Fair delivery"): at most
 * `perEndpoint` attempts in flight to one endpoint and `perOwner` for one owner, so an
 * owner whose receivers hang holds only its share of the worker's slots. A delivery that
 * finds no room is parked (its job moved to the delayed set without an attempt) and woken
 * when a slot of its endpoint or owner frees in this process.
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

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

/** In-flight attempts of this process, by endpoint and by owner. */
export class FairShare {
  private readonly endpoints = new Map<string, number>();
  private readonly owners = new Map<string, number>();
  private total = 0;

  constructor(
    readonly limits: FairShareLimits,
    /** Called after every release (the waiting room wakes the next parked delivery). */
    private readonly onRelease: () => void = () => undefined,
  ) {}

  get inFlight(): number {
    return this.total;
  }

  inFlightOf(route: DeliveryRoute): { endpoint: number; owner: number } {
    return { endpoint: this.endpoints.get(route.endpointId) ?? 0, owner: this.owners.get(route.ownerId) ?? 0 };
  }

  /** Free slots for `route` once `reserved` (slots promised to woken deliveries) are counted; 0 when none. */
  room(route: DeliveryRoute, reserved: { endpoint: number; owner: number } = { endpoint: 0, owner: 0 }): number {
    const used = this.inFlightOf(route);
    return Math.max(
      0,
      Math.min(this.limits.perEndpoint - used.endpoint - reserved.endpoint, this.limits.perOwner - used.owner - reserved.owner),
    );
  }

  /** Takes a slot for `route`, or says which limit is reached. */
  tryAcquire(route: DeliveryRoute): Lease | Blocker {
    const used = this.inFlightOf(route);
    if (used.endpoint >= this.limits.perEndpoint) return 'endpoint';
    if (used.owner >= this.limits.perOwner) return 'owner';
    bump(this.endpoints, route.endpointId, 1);
    bump(this.owners, route.ownerId, 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        bump(this.endpoints, route.endpointId, -1);
        bump(this.owners, route.ownerId, -1);
        this.total--;
        this.onRelease();
      },
    };
  }
}

interface Entry<J> {
  readonly id: string;
  job: J;
  readonly route: DeliveryRoute;
  /** How many times this process parked it (the fallback delay grows with it). */
  parks: number;
  /** When its delayed job becomes due by itself (ms). */
  dueAt: number;
  /** Being processed now (it arrived again): not to be woken. */
  active: boolean;
  /** When it was woken (promoted); while recent it holds a reserved slot. */
  wokenAt: number | undefined;
}

export interface WaitingRoomOptions<J> {
  readonly fair: FairShare;
  /** Moves a parked job from the delayed set to the waiting list (BullMQ `job.promote()`). */
  readonly wake: (job: J) => Promise<void>;
  /** Slots of the process (the worker's concurrency): never more woken than could run. */
  readonly concurrency: number;
  /** Parked deliveries remembered at most; more are left to their fallback delay. */
  readonly capacity: number;
  /** A woken delivery holds its slot this long; if it has not arrived by then, it went to another process. */
  readonly wakeTtlMs: number;
  readonly now: () => number;
}

/**
 * The parked deliveries of this process, by endpoint in arrival order. `pump()` wakes the
 * oldest ones whose endpoint and owner have room — on every release and periodically (a
 * woken job may be taken by another process, whose own releases then wake it there) —
 * and never more than could start, so a parked job is not fetched again just to be parked
 * again: waiting costs no CPU and no Redis traffic while the slots stay taken.
 */
export class WaitingRoom<J> {
  /** Parked deliveries by endpoint; the map's order is the round-robin order of endpoints. */
  private readonly queues = new Map<string, Map<string, Entry<J>>>();
  private readonly byId = new Map<string, Entry<J>>();
  /** Woken, not yet arrived: each holds a slot of its endpoint and owner for `wakeTtlMs`. */
  private readonly woken = new Map<string, Entry<J>>();

  constructor(private readonly options: WaitingRoomOptions<J>) {}

  get size(): number {
    return this.byId.size;
  }

  /**
   * A job arrives (again): its route if this process parked it, and it stops being a
   * candidate to wake until it is parked again or leaves.
   */
  arrive(id: string): DeliveryRoute | undefined {
    const entry = this.byId.get(id);
    if (entry === undefined) return undefined;
    entry.active = true;
    entry.wokenAt = undefined;
    this.woken.delete(id);
    return entry.route;
  }

  /**
   * The how-manieth park of `id` in this process the next one would be (the fallback delay
   * grows with it), or undefined when the room is full and would not remember it.
   */
  nextPark(id: string): number | undefined {
    const entry = this.byId.get(id);
    if (entry !== undefined) return entry.parks + 1;
    return this.byId.size < this.options.capacity ? 1 : undefined;
  }

  /**
   * Records a job just moved to the delayed set, due back by itself at `dueAt`. A job
   * parked before keeps its place in its endpoint's line.
   */
  park(id: string, job: J, route: DeliveryRoute, dueAt: number): void {
    const existing = this.byId.get(id);
    if (existing !== undefined) {
      existing.job = job;
      existing.parks++;
      existing.dueAt = dueAt;
      existing.active = false;
      existing.wokenAt = undefined;
      this.woken.delete(id);
      return;
    }
    if (this.byId.size >= this.options.capacity) return;
    const entry: Entry<J> = { id, job, route, parks: 1, dueAt, active: false, wokenAt: undefined };
    this.byId.set(id, entry);
    let line = this.queues.get(route.endpointId);
    if (line === undefined) {
      line = new Map();
      this.queues.set(route.endpointId, line);
    }
    line.set(id, entry);
  }

  /** The job was attempted, finished or failed here: forget it. */
  leave(id: string): void {
    const entry = this.byId.get(id);
    if (entry === undefined) return;
    this.byId.delete(id);
    this.woken.delete(id);
    const line = this.queues.get(entry.route.endpointId);
    line?.delete(id);
    if (line?.size === 0) this.queues.delete(entry.route.endpointId);
  }

  /** Wakes the oldest parked deliveries that have room now; returns how many. */
  pump(): number {
    const { fair, concurrency, wakeTtlMs } = this.options;
    const now = this.options.now();
    const reservedEndpoint = new Map<string, number>();
    const reservedOwner = new Map<string, number>();
    for (const [id, entry] of this.woken) {
      if (entry.wokenAt === undefined || now - entry.wokenAt > wakeTtlMs) {
        // not arrived here in time: taken by another process, or still queued behind others
        // (it is no longer delayed either way); if it comes back here it is parked anew
        this.leave(id);
        continue;
      }
      bump(reservedEndpoint, entry.route.endpointId, 1);
      bump(reservedOwner, entry.route.ownerId, 1);
    }
    let budget = concurrency - fair.inFlight - this.woken.size;
    let wokenNow = 0;
    const served: string[] = [];
    for (const [endpointId, line] of this.queues) {
      if (budget <= 0) break;
      const first = line.values().next().value;
      if (first === undefined) {
        this.queues.delete(endpointId);
        continue;
      }
      let room = fair.room(first.route, {
        endpoint: reservedEndpoint.get(endpointId) ?? 0,
        owner: reservedOwner.get(first.route.ownerId) ?? 0,
      });
      if (room <= 0) continue;
      for (const entry of line.values()) {
        if (room <= 0 || budget <= 0) break;
        if (entry.active || entry.wokenAt !== undefined) continue;
        if (entry.dueAt + wakeTtlMs < now) {
          // its fallback delay has run out: the job came back by itself (here or elsewhere)
          this.leave(entry.id);
          continue;
        }
        entry.wokenAt = now;
        this.woken.set(entry.id, entry);
        bump(reservedOwner, entry.route.ownerId, 1);
        room--;
        budget--;
        wokenNow++;
        const { id } = entry;
        this.options.wake(entry.job).catch(() => {
          // no longer delayed (taken meanwhile) or Redis unreachable: its fallback delay stands
          this.leave(id);
        });
      }
      served.push(endpointId);
    }
    // round robin: endpoints just served go to the back of the line
    for (const endpointId of served) {
      const line = this.queues.get(endpointId);
      if (line === undefined) continue;
      this.queues.delete(endpointId);
      if (line.size > 0) this.queues.set(endpointId, line);
    }
    return wokenNow;
  }

  /** Forgets parked deliveries whose fallback delay ran out long ago (they came back by themselves). */
  prune(): void {
    const now = this.options.now();
    for (const entry of this.byId.values()) {
      if (!entry.active && entry.wokenAt === undefined && entry.dueAt + this.options.wakeTtlMs < now) this.leave(entry.id);
    }
  }
}

/**
 * How long a parked job waits in the delayed set if nothing wakes it: 1 s, doubling with
 * each park of the same job up to `maxMs`, jittered down by up to half so that parked
 * jobs do not come back together.
 */
export function fallbackDelayMs(parks: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxMs, 1_000 * 2 ** Math.min(20, Math.max(0, parks - 1)));
  return Math.round(base * (0.5 + random() / 2));
}
