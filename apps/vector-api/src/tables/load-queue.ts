import type { TableHead } from './tables.repository';

interface Entry {
  readonly key: string;
  readonly head: TableHead;
  /** Milliseconds since the epoch of the table's last query (any instance), or -Infinity: never. */
  readonly lastQueried: number;
  /** Order of a promotion (a request asked for the table while it waited): later ones first. */
  readonly promoted: number;
}

/** Higher first: promoted (most recent promotion first), then last queried, then newest created, then key. */
function before(a: Entry, b: Entry): number {
  return (
    b.promoted - a.promoted ||
    (b.lastQueried === a.lastQueried ? 0 : b.lastQueried > a.lastQueried ? 1 : -1) ||
    b.head.createdAt.getTime() - a.head.createdAt.getTime() ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}

/**
 * The tables waiting to be loaded at start, most recently queried first (decision 187):
 * a table a request asked for while it waited goes to the front. Keyed by project/name, one
 * entry per key (a table dropped and created again replaces its entry). Sorted lazily: adds
 * are batched (thousands at start), each take is O(1) amortised.
 */
export class LoadQueue {
  private readonly entries = new Map<string, Entry>();
  private order: Entry[] = [];
  private sorted = true;
  private promotions = 0;

  get size(): number {
    return this.entries.size;
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  get(key: string): TableHead | undefined {
    return this.entries.get(key)?.head;
  }

  /** Adds or replaces the table's entry (`lastQueried`: null when never queried). */
  add(key: string, head: TableHead, lastQueried: Date | null): void {
    const previous = this.entries.get(key);
    const entry: Entry = {
      key,
      head,
      lastQueried: lastQueried === null ? -Infinity : lastQueried.getTime(),
      promoted: previous?.head.id === head.id ? previous.promoted : 0,
    };
    this.entries.set(key, entry);
    this.order.push(entry);
    this.sorted = false;
  }

  remove(key: string): TableHead | undefined {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry?.head;
  }

  /** Moves the table to the front (a request is waiting for it); false when it is not queued. */
  promote(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    if (entry.promoted === this.promotions && entry.promoted > 0) return true; // already first
    const promoted: Entry = { ...entry, promoted: ++this.promotions };
    this.entries.set(key, promoted);
    this.order.push(promoted);
    this.sorted = false;
    return true;
  }

  /** The table to load next, removed from the queue; undefined when empty. */
  take(): TableHead | undefined {
    this.sort();
    while (this.order.length > 0) {
      const entry = this.order.pop()!;
      if (this.entries.get(entry.key) !== entry) continue; // replaced, promoted or removed since
      this.entries.delete(entry.key);
      return entry.head;
    }
    return undefined;
  }

  /** 0-based place of the table in the queue (0: next), or undefined when not queued. */
  position(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.sort();
    let place = 0;
    for (let i = this.order.length - 1; i >= 0; i--) {
      const e = this.order[i];
      if (e === entry) return place;
      if (this.entries.get(e.key) === e) place++;
    }
    return undefined;
  }

  /** The take order, stale entries dropped (kept in reverse, so take() pops the first). */
  private sort(): void {
    if (this.sorted) return;
    this.order = this.order.filter((e) => this.entries.get(e.key) === e).sort((a, b) => before(b, a));
    this.sorted = true;
  }
}
