import { mulberry32 } from '../../../../test/support/random';
import type { Metadata } from './filter';
import { RowCatalog } from './row-catalog';

/** What the catalog replaces: a Map of ids, arrays of rows (VectorCollection before issue 32). */
class Reference {
  readonly rows = new Map<number, { id: string; metadata: Metadata | undefined }>();
  readonly labels = new Map<string, number>();

  set(label: number, id: string, metadata: Metadata | undefined): void {
    const old = this.rows.get(label);
    if (old && this.labels.get(old.id) === label) this.labels.delete(old.id);
    this.rows.set(label, { id, metadata });
    this.labels.set(id, label);
  }

  delete(label: number): boolean {
    const old = this.rows.get(label);
    if (!old) return false;
    if (this.labels.get(old.id) === label) this.labels.delete(old.id);
    this.rows.delete(label);
    return true;
  }
}

function check(catalog: RowCatalog, ref: Reference, labels: number, ids: readonly string[]): void {
  for (let label = 0; label < labels; label++) {
    const row = ref.rows.get(label);
    expect(catalog.has(label)).toBe(row !== undefined);
    expect(catalog.id(label)).toBe(row?.id);
    expect(catalog.metadata(label)).toEqual(row?.metadata);
    const bytes =
      row === undefined ? undefined : row.metadata === undefined ? 2 : Buffer.byteLength(JSON.stringify(row.metadata));
    expect(catalog.metadataBytes(label)).toBe(bytes);
    for (const key of FIELD_KEYS) expect(catalog.field(label, key)).toEqual(row?.metadata?.[key]);
  }
  for (const id of ids) expect(catalog.labelOf(id)).toBe(ref.labels.get(id));
  expect(catalog.count).toBe(ref.rows.size);
}

const FIELD_KEYS = ['n', 'tag', 'list', 'ok', 'text', 'qu"o\\te', 'ü', 'missing', 'u'];

// ids with multi-byte characters, shared prefixes, the empty-metadata and no-metadata cases.
const IDS = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? `ü-${i}-€` : i % 5 === 0 ? `doc:${'x'.repeat(i)}` : `r${i}`));

function randomMetadata(rand: () => number, i: number): Metadata | undefined {
  const r = rand();
  if (r < 0.15) return undefined;
  if (r < 0.25) return {};
  const m: Metadata = {
    n: i,
    tag: `t${Math.floor(rand() * 5)}`,
    list: ['a', 'ß', '"]}'],
    ok: rand() < 0.5,
    text: 'é'.repeat(Math.floor(rand() * 40)),
  };
  if (rand() < 0.5) m['qu"o\\te'] = 'v"}\\,';
  if (rand() < 0.5) m['ü'] = [1.5, -2e-7, true];
  return m;
}

describe('RowCatalog', () => {
  it('round-trips ids and metadata, and maps ids to labels', () => {
    const c = new RowCatalog({ background: false });
    c.set(3, 'doc-1', { a: 1, b: ['x', 'y'], c: true });
    c.set(0, 'ünïcode-✓', undefined);
    c.set(7, 'empty', {});
    expect(c.id(3)).toBe('doc-1');
    expect(c.metadata(3)).toEqual({ a: 1, b: ['x', 'y'], c: true });
    expect(c.metadata(3)).not.toBe(c.metadata(3)); // a fresh object each time
    expect(c.labelOf('ünïcode-✓')).toBe(0);
    expect(c.metadata(0)).toBeUndefined();
    expect(c.metadataBytes(0)).toBe(2);
    expect(c.metadata(7)).toEqual({});
    expect(c.metadataBytes(7)).toBe(2);
    expect(c.labelOf('nope')).toBeUndefined();
    expect(c.has(1)).toBe(false);
    expect(c.id(1)).toBeUndefined();
    expect(c.delete(3)).toBe(true);
    expect(c.delete(3)).toBe(false);
    expect(c.labelOf('doc-1')).toBeUndefined();
    expect(c.count).toBe(2);
  });

  it('a label written again loses its old id; an id written at another label moves there', () => {
    const c = new RowCatalog({ background: false });
    c.set(1, 'a', { v: 1 });
    c.set(1, 'b', { v: 2 });
    expect(c.labelOf('a')).toBeUndefined();
    expect(c.labelOf('b')).toBe(1);
    c.set(2, 'b', { v: 3 });
    expect(c.labelOf('b')).toBe(2);
    // label 1 still holds its row (the caller removes it), but deleting it keeps b → 2.
    expect(c.delete(1)).toBe(true);
    expect(c.labelOf('b')).toBe(2);
  });

  it.each([1, 2, 3, 4, 5, 6])('matches a Map-based reference under inserts, reuse, deletes and compaction (seed %i)', (seed) => {
    const rand = mulberry32(seed);
    const catalog = new RowCatalog({ background: false, compactMinBytes: 0, compactChunk: 7 });
    const ref = new Reference();
    const LABELS = 120;
    for (let step = 0; step < 800; step++) {
      const r = rand();
      const label = Math.floor(rand() * LABELS);
      if (r < 0.55) {
        const id = IDS[Math.floor(rand() * IDS.length)];
        const metadata = randomMetadata(rand, step);
        catalog.set(label, id, metadata);
        ref.set(label, id, metadata);
      } else if (r < 0.85) {
        expect(catalog.delete(label)).toBe(ref.delete(label));
      } else if (r < 0.97) {
        catalog.compactStep(0); // one chunk of a compaction, if one is under way
      } else {
        catalog.compact();
      }
      if (step % 40 === 0) check(catalog, ref, LABELS, IDS);
    }
    check(catalog, ref, LABELS, IDS);
    catalog.compact();
    check(catalog, ref, LABELS, IDS);
    expect(catalog.compactions).toBeGreaterThan(0);
    expect(catalog.stats().arenaBytes).toBe(catalog.stats().liveBytes);
  });

  it('reclaims the space of deleted rows in the background, in slices', async () => {
    const catalog = new RowCatalog({ compactMinBytes: 0, sliceMs: 0, compactChunk: 16 });
    for (let i = 0; i < 2000; i++) catalog.set(i, `id-${i}`, { i, pad: 'p'.repeat(50) });
    const before = catalog.stats();
    for (let i = 0; i < 2000; i += 4) catalog.set(i, `id-${i}`, { i, pad: 'q'.repeat(50) }); // rewrites
    for (let i = 1; i < 2000; i += 2) catalog.delete(i);
    expect(catalog.stats().compacting).toBe(true);
    while (catalog.stats().compacting) await new Promise((resolve) => setImmediate(resolve));
    const after = catalog.stats();
    expect(after.arenaBytes).toBeLessThan(before.arenaBytes);
    expect(after.arenaBytes).toBeLessThanOrEqual(after.liveBytes * 2);
    for (let i = 0; i < 2000; i++) {
      expect(catalog.labelOf(`id-${i}`)).toBe(i % 2 === 1 ? undefined : i);
      if (i % 2 === 0) expect(catalog.metadata(i)).toEqual({ i, pad: (i % 4 === 0 ? 'q' : 'p').repeat(50) });
    }
    catalog.close();
  });

  it('keeps a hash table of many ids consistent as it grows and shrinks', () => {
    const catalog = new RowCatalog({ background: false });
    const n = 20_000;
    for (let i = 0; i < n; i++) catalog.set(i, `k${i}`);
    for (let i = 0; i < n; i += 3) catalog.delete(i);
    for (let i = 0; i < n; i++) expect(catalog.labelOf(`k${i}`)).toBe(i % 3 === 0 ? undefined : i);
    for (let i = 0; i < n; i += 3) catalog.set(i, `k${i}`);
    for (let i = 0; i < n; i++) expect(catalog.labelOf(`k${i}`)).toBe(i);
  });
});
