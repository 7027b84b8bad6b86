import { performance } from 'node:perf_hooks';
import { type Field, type Metadata, type MetadataValue, readField } from './filter';

/** Largest arena a catalog holds (Buffer's limit; offsets are uint32). */
const MAX_ARENA_BYTES = 2 ** 32 - 1;

export interface RowCatalogOptions {
  /** Longest stretch of background compaction before it yields to the event loop (ms). */
  readonly sliceMs?: number;
  /** Compaction starts when freed bytes pass both this and the live bytes (the arena is ≥ 2 × live). */
  readonly compactMinBytes?: number;
  /** false: compaction only runs when `compact()` is called (tests). */
  readonly background?: boolean;
  /** Labels copied between two clock reads of a compaction slice (tests lower it to stop mid-way). */
  readonly compactChunk?: number;
  readonly onError?: (err: unknown) => void;
}

/** FNV-1a over bytes [start, end) of `buf`. */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** Index just past the JSON string starting (with its quote) at `i` (JSON.stringify's output). */
function skipString(buf: Uint8Array, i: number): number {
  i++;
  for (;;) {
    const b = buf[i];
    if (b === 0x22) return i + 1;
    i += b === 0x5c ? 2 : 1; // a backslash escapes the next byte; UTF-8 continuation bytes are ≥ 0x80
  }
}

/** Index just past the JSON value starting at `i` (no whitespace: JSON.stringify's output). */
function skipValue(buf: Uint8Array, i: number, end: number): number {
  let depth = 0;
  while (i < end) {
    const b = buf[i];
    if (b === 0x22) {
      i = skipString(buf, i);
      if (depth === 0) return i;
      continue;
    }
    if (b === 0x5b || b === 0x7b) depth++;
    else if (b === 0x5d || b === 0x7d) {
      if (depth === 0) return i; // the end of the enclosing object
      depth--;
      if (depth === 0) return i + 1;
    } else if (b === 0x2c && depth === 0) return i;
    i++;
  }
  return i;
}

/**
 * The JSON value in bytes [start, end) as a metadata field: short ASCII strings without
 * escapes, numbers, booleans and null decoded in place (a Buffer.toString and JSON.parse per
 * row cost ~2 µs, most of a scan); anything else (arrays, objects) through JSON.parse.
 */
function decodeValue(buf: Buffer, start: number, end: number): MetadataValue {
  const b = buf[start];
  if (b === 0x74) return true;
  if (b === 0x66) return false;
  if (b === 0x6e) return null;
  if (end - start <= 66 && (b === 0x22 || b === 0x2d || (b >= 0x30 && b <= 0x39))) {
    const quoted = b === 0x22;
    let text = '';
    let plain = true;
    for (let j = quoted ? start + 1 : start, last = quoted ? end - 1 : end; j < last; j++) {
      const c = buf[j];
      if (c >= 0x80 || c === 0x5c) {
        plain = false;
        break;
      }
      text += String.fromCharCode(c);
    }
    if (plain) return quoted ? text : Number(text);
  }
  return JSON.parse(buf.toString('utf8', start, end)) as MetadataValue;
}

/**
 * Each label's id and metadata off the V8 heap (issue 32, "Memory"): per label a few
 * typed-array entries, and the bytes themselves in one growable arena (a Buffer, outside
 * the JS heap): the id as UTF-8, then the metadata as its JSON text (UTF-8). No JS string
 * or object is kept per row, so a million rows add a handful of objects to what the
 * garbage collector walks, not millions.
 *
 * - id → label: an open-addressing hash table (linear probing, backward-shift deletion) of
 *   label + 1 in an Int32Array, at most half full; each label keeps its id's hash, so the
 *   table grows without reading the ids again.
 * - `metadata(label)` parses the row's JSON: a fresh object per call (the answer path reads
 *   only its hits'; a filter on a scanned key reads every row's, see filter.ts).
 * - `metadataBytes(label)` is the JSON's length: what the metadata adds to an answer.
 * - A row written again or deleted leaves its bytes behind as garbage; once the garbage
 *   passes the live bytes (and `compactMinBytes`), a background compaction copies the live
 *   rows, label by label, into a fresh arena in slices of at most `sliceMs`. Meanwhile rows
 *   below its cursor are read from (and written to) the new arena, the others from the old.
 */
export class RowCatalog {
  /** Byte offset of the label's row in its arena. */
  private off = new Uint32Array(0);
  /** UTF-8 bytes of the id, plus 1 (0: no row at this label). */
  private idLen = new Uint32Array(0);
  /** Bytes of the metadata's JSON (0: the row has no metadata). */
  private metaLen = new Uint32Array(0);
  /** Hash of the id's bytes. */
  private hashOf = new Uint32Array(0);
  /** label + 1, or 0 for an empty slot; length a power of two. */
  private slots = new Int32Array(16);
  /**
   * While the table grows: the previous table, whose entries move to `slots` in the
   * background (a slice at a time, like compaction) from index `migrated` on. Moved or
   * removed entries become -1 (a tombstone: lookups probe past it). Lookups try `slots`
   * first, then this.
   */
  private oldSlots: Int32Array | undefined;
  private migrated = 0;
  private arena: Buffer = Buffer.allocUnsafeSlow(1024);
  private used = 0;
  /** Bytes the rows hold (the rest of the arena is garbage). */
  private live = 0;
  /** Rows held. */
  count = 0;
  /** One past the largest label ever written. */
  size = 0;
  private scratch: Buffer = Buffer.allocUnsafeSlow(256);

  /** A compaction in progress: labels below `cursor` live in `next`. */
  private compaction: { next: Buffer; used: number; cursor: number } | undefined;
  private scheduled = false;
  private closed = false;
  private readonly sliceMs: number;
  private readonly compactMinBytes: number;
  private readonly background: boolean;
  private readonly compactChunk: number;
  private readonly onError: (err: unknown) => void;
  /** Compactions completed (metrics, tests). */
  compactions = 0;

  constructor(options: RowCatalogOptions = {}) {
    this.sliceMs = options.sliceMs ?? 2;
    this.compactMinBytes = options.compactMinBytes ?? 1 << 20;
    this.background = options.background ?? true;
    this.compactChunk = options.compactChunk ?? 4096;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Bytes held off the heap and in typed arrays (arena(s), per-label arrays, hash table). */
  get bytes(): number {
    const perLabel = this.off.byteLength + this.idLen.byteLength + this.metaLen.byteLength + this.hashOf.byteLength;
    const table = this.slots.byteLength + (this.oldSlots?.byteLength ?? 0);
    return this.arena.byteLength + (this.compaction?.next.byteLength ?? 0) + perLabel + table;
  }

  /** Bytes the rows hold, and the bytes of the arena(s) in use (rows and garbage). */
  stats(): { readonly liveBytes: number; readonly arenaBytes: number; readonly compacting: boolean } {
    const c = this.compaction;
    return { liveBytes: this.live, arenaBytes: this.used + (c?.used ?? 0), compacting: c !== undefined };
  }

  has(label: number): boolean {
    return label < this.size && this.idLen[label] !== 0;
  }

  private arenaOf(label: number): Buffer {
    const c = this.compaction;
    return c !== undefined && label < c.cursor ? c.next : this.arena;
  }

  /** The row's id, or undefined when the label holds no row. */
  id(label: number): string | undefined {
    if (!this.has(label)) return undefined;
    const start = this.off[label];
    return this.arenaOf(label).toString('utf8', start, start + this.idLen[label] - 1);
  }

  /** The row's metadata as a fresh object (undefined: no row, or a row without metadata). */
  metadata(label: number): Metadata | undefined {
    if (!this.has(label) || this.metaLen[label] === 0) return undefined;
    const start = this.off[label] + this.idLen[label] - 1;
    return JSON.parse(this.arenaOf(label).toString('utf8', start, start + this.metaLen[label])) as Metadata;
  }

  /** The JSON form of the key `field` looked up last (a scan asks for one key, row after row). */
  private fieldKey = '';
  private fieldKeyBytes: Buffer = Buffer.alloc(0);

  /**
   * One field (path) of the row's metadata, as readField(metadata(label), key) gives it: a
   * key without a dot is found in the row's JSON without parsing the rest (what a filter on
   * a scanned key reads per row); a dotted path parses the row (a literal dotted key and a
   * nested object both reach it).
   */
  field(label: number, key: string): Field {
    if (!this.has(label) || this.metaLen[label] === 0) return undefined;
    if (key.includes('.')) return readField(this.metadata(label), key);
    if (key !== this.fieldKey) {
      this.fieldKey = key;
      this.fieldKeyBytes = Buffer.from(JSON.stringify(key), 'utf8');
    }
    const k = this.fieldKeyBytes;
    const buf = this.arenaOf(label);
    const start = this.off[label] + this.idLen[label] - 1;
    const end = start + this.metaLen[label];
    if (buf[start] !== 0x7b) return undefined; // not an object
    let i = start + 1;
    while (i < end && buf[i] === 0x22) {
      const keyStart = i;
      i = skipString(buf, i);
      let match = i - keyStart === k.length;
      for (let j = 0; match && j < k.length; j++) match = buf[keyStart + j] === k[j];
      i++; // ':'
      const valueStart = i;
      i = skipValue(buf, i, end);
      if (match) return decodeValue(buf, valueStart, i);
      if (buf[i] === 0x2c) i++; // ','
    }
    return undefined;
  }

  /** Bytes of the row's metadata as JSON (`{}`, 2, when it has none); undefined when no row. */
  metadataBytes(label: number): number | undefined {
    if (!this.has(label)) return undefined;
    return this.metaLen[label] === 0 ? 2 : this.metaLen[label];
  }

  /** The label holding this id, or undefined. */
  labelOf(id: string): number | undefined {
    const n = this.encode(id);
    const hash = hashBytes(this.scratch, 0, n);
    const ref = this.find(hash, this.scratch, n);
    return ref === -1 ? undefined : this.entry(ref) - 1;
  }

  /** A slot reference: i ≥ 0 is slots[i], i ≤ -2 is oldSlots[-i - 2] (-1: none). */
  private entry(ref: number): number {
    return ref >= 0 ? this.slots[ref] : (this.oldSlots as Int32Array)[-ref - 2];
  }

  private setEntry(ref: number, value: number): void {
    if (ref >= 0) this.slots[ref] = value;
    else (this.oldSlots as Int32Array)[-ref - 2] = value;
  }

  /** UTF-8 of `s` into the scratch buffer; its length. */
  private encode(s: string): number {
    const max = s.length * 3;
    if (max > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(Math.max(max, this.scratch.length * 2));
    return this.scratch.write(s, 0, 'utf8');
  }

  /** The slot reference (see entry) whose label's id is bytes [0, n) of `key`, or -1. */
  private find(hash: number, key: Uint8Array, n: number): number {
    const i = this.findIn(this.slots, hash, key, n);
    if (i >= 0 || this.oldSlots === undefined) return i;
    const o = this.findIn(this.oldSlots, hash, key, n);
    return o >= 0 ? -o - 2 : -1;
  }

  private findIn(slots: Int32Array, hash: number, key: Uint8Array, n: number): number {
    const mask = slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = slots[i];
      if (entry === 0) return -1;
      if (entry === -1) continue;
      const label = entry - 1;
      if (this.hashOf[label] === hash && this.idLen[label] === n + 1) {
        const buf = this.arenaOf(label);
        const start = this.off[label];
        let j = 0;
        while (j < n && buf[start + j] === key[j]) j++;
        if (j === n) return i;
      }
    }
  }

  private insertSlot(label: number): void {
    if ((this.count + 1) * 2 > this.slots.length) {
      // Twice the size; the entries move over in the background (a move of a million
      // entries at once held the event loop for tens of ms).
      this.migrate(Infinity); // the previous growth's move, if still under way
      this.oldSlots = this.slots;
      this.migrated = 0;
      this.slots = new Int32Array(this.slots.length * 2);
      if (this.background) this.schedule();
    }
    this.place(label + 1);
  }

  /** Puts an entry in `slots` (linear probing to the first empty slot). */
  private place(entry: number): void {
    const { slots } = this;
    const mask = slots.length - 1;
    let i = this.hashOf[entry - 1] & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = entry;
  }

  /** Moves old entries into `slots` until `deadline`; true when none is left. */
  private migrate(deadline: number): boolean {
    const old = this.oldSlots;
    if (old === undefined) return true;
    while (this.migrated < old.length) {
      const end = Math.min(old.length, this.migrated + this.compactChunk);
      for (let i = this.migrated; i < end; i++) {
        const entry = old[i];
        if (entry > 0) {
          this.place(entry);
          old[i] = -1; // a tombstone: an empty slot stays empty, so probes of the old table still end
        }
      }
      this.migrated = end;
      if (performance.now() >= deadline && this.migrated < old.length) return false;
    }
    this.oldSlots = undefined;
    return true;
  }

  /** Removes slot i, moving later entries of its probe run back (no tombstones). */
  private removeSlot(i: number): void {
    const { slots } = this;
    const mask = slots.length - 1;
    let hole = i;
    for (let j = (i + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = this.hashOf[slots[j] - 1] & mask;
      // Move j into the hole when its home is not in (hole, j] (cyclically).
      if (hole <= j ? home <= hole || home > j : home <= hole && home > j) {
        slots[hole] = slots[j];
        hole = j;
      }
    }
    slots[hole] = 0;
  }

  /** The slot reference (see entry) of the label's own id mapping (the id may map to another label), or -1. */
  private slotOfLabel(label: number): number {
    const i = this.labelIn(this.slots, label);
    if (i >= 0 || this.oldSlots === undefined) return i;
    const o = this.labelIn(this.oldSlots, label);
    return o >= 0 ? -o - 2 : -1;
  }

  private labelIn(slots: Int32Array, label: number): number {
    const mask = slots.length - 1;
    for (let i = this.hashOf[label] & mask; ; i = (i + 1) & mask) {
      const entry = slots[i];
      if (entry === 0) return -1;
      if (entry === label + 1) return i;
    }
  }

  private growLabels(min: number): void {
    let cap = Math.max(this.off.length, 1024);
    while (cap < min) cap = Math.ceil(cap * 1.5);
    const grow = <T extends Uint32Array>(a: T): T => {
      const b = new Uint32Array(cap) as T;
      b.set(a.subarray(0, this.size));
      return b;
    };
    this.off = grow(this.off);
    this.idLen = grow(this.idLen);
    this.metaLen = grow(this.metaLen);
    this.hashOf = grow(this.hashOf);
  }

  /**
   * Stores the row at `label` (replacing what the label held) and maps `id` to it. An id
   * mapped to another label is re-pointed here (the caller removes that label's row first
   * when it should go).
   */
  set(label: number, id: string, metadata?: Metadata): void {
    this.clear(label);
    const idBytes = Buffer.byteLength(id, 'utf8');
    const json = metadata === undefined ? '' : JSON.stringify(metadata);
    const metaBytes = json.length === 0 ? 0 : Buffer.byteLength(json, 'utf8');
    if (label >= this.off.length) this.growLabels(label + 1);
    const c = this.compaction;
    const intoNext = c !== undefined && label < c.cursor;
    const need = idBytes + metaBytes;
    let start: number;
    if (intoNext) {
      c.next = this.ensure(c.next, c.used, need);
      start = c.used;
      c.used += need;
    } else {
      this.arena = this.ensure(this.arena, this.used, need);
      start = this.used;
      this.used += need;
    }
    const buf = intoNext ? c.next : this.arena;
    buf.write(id, start, idBytes, 'utf8');
    if (metaBytes > 0) buf.write(json, start + idBytes, metaBytes, 'utf8');
    this.off[label] = start;
    this.idLen[label] = idBytes + 1;
    this.metaLen[label] = metaBytes;
    this.hashOf[label] = hashBytes(buf, start, start + idBytes);
    this.live += need;
    if (label >= this.size) this.size = label + 1;
    // Another label holding the same id loses the mapping (the newer write wins).
    const other = this.find(this.hashOf[label], buf.subarray(start, start + idBytes), idBytes);
    if (other !== -1) this.setEntry(other, label + 1);
    else this.insertSlot(label);
    this.count++;
  }

  /** Removes the label's row; true when there was one. Its id's mapping goes if it pointed here. */
  delete(label: number): boolean {
    if (!this.has(label)) return false;
    this.clear(label);
    return true;
  }

  private clear(label: number): void {
    if (!this.has(label)) return;
    const ref = this.slotOfLabel(label);
    if (ref >= 0) this.removeSlot(ref);
    else if (ref !== -1) this.setEntry(ref, -1); // a tombstone in the table being moved
    this.live -= this.idLen[label] - 1 + this.metaLen[label];
    this.idLen[label] = 0;
    this.metaLen[label] = 0;
    this.count--;
    this.maybeCompact();
  }

  /** `buf`, or a larger copy of its first `used` bytes, with room for `need` more. */
  private ensure(buf: Buffer, used: number, need: number): Buffer {
    if (used + need <= buf.length) return buf;
    if (used + need > MAX_ARENA_BYTES) throw new RangeError('row catalog: ids and metadata of this table pass 4 GiB');
    let cap = Math.max(buf.length, 1024);
    while (cap < used + need) cap = Math.min(MAX_ARENA_BYTES, cap * 2);
    const grown = Buffer.allocUnsafeSlow(cap);
    buf.copy(grown, 0, 0, used);
    return grown;
  }

  private maybeCompact(): void {
    if (this.compaction !== undefined || this.closed) return;
    const garbage = this.used - this.live;
    if (garbage < this.compactMinBytes || garbage < this.live) return;
    this.compaction = { next: Buffer.allocUnsafeSlow(Math.max(1024, Math.ceil(this.live * 1.25))), used: 0, cursor: 0 };
    if (this.background) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        if (this.closed) return;
        if (!this.compactStep(performance.now() + this.sliceMs)) this.schedule();
      } catch (err) {
        this.onError(err);
      }
    });
  }

  /**
   * Background work until `deadline` (performance.now()): moves the hash table's entries
   * after a growth, then copies rows into the new arena of a compaction. True when done.
   */
  compactStep(deadline = Infinity): boolean {
    if (!this.migrate(deadline)) return false;
    const c = this.compaction;
    if (c === undefined) return true;
    while (c.cursor < this.size) {
      const end = Math.min(this.size, c.cursor + this.compactChunk);
      for (let label = c.cursor; label < end; label++) {
        const id = this.idLen[label];
        if (id === 0) continue;
        const n = id - 1 + this.metaLen[label];
        c.next = this.ensure(c.next, c.used, n);
        const start = this.off[label];
        this.arena.copy(c.next, c.used, start, start + n);
        this.off[label] = c.used;
        c.used += n;
      }
      c.cursor = end;
      if (performance.now() >= deadline && c.cursor < this.size) return false;
    }
    this.arena = c.next;
    this.used = c.used;
    this.compaction = undefined;
    this.compactions++;
    this.maybeCompact();
    return this.compaction === undefined;
  }

  /** Starts a compaction if none runs (whatever the garbage) and runs it, and any table move, to the end (tests). */
  compact(): void {
    this.migrate(Infinity);
    if (this.compaction === undefined) {
      this.compaction = { next: Buffer.allocUnsafeSlow(Math.max(1024, this.live)), used: 0, cursor: 0 };
    }
    while (!this.compactStep()) {
      /* runs to the end */
    }
  }

  close(): void {
    this.closed = true;
  }
}
