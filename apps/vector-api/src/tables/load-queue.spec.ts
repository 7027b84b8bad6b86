import { LoadQueue } from './load-queue';
import type { TableHead } from './tables.repository';

const head = (name: string, createdSecondsAgo: number, id = `id-${name}`): TableHead => ({
  id,
  projectId: 'p',
  name,
  dimension: 2,
  indexKind: 'flat',
  metric: 'cosine',
  seq: 0n,
  createdAt: new Date(Date.UTC(2026, 0, 1) - createdSecondsAgo * 1000),
});
const at = (minutesAgo: number): Date => new Date(Date.UTC(2026, 0, 2) - minutesAgo * 60_000);

function drain(q: LoadQueue): string[] {
  const out: string[] = [];
  for (let h = q.take(); h; h = q.take()) out.push(h.name);
  return out;
}

describe('LoadQueue', () => {
  it('takes the most recently queried first, then never-queried tables newest first', () => {
    const q = new LoadQueue();
    q.add('p/a', head('a', 50), null);
    q.add('p/b', head('b', 40), at(60));
    q.add('p/c', head('c', 30), null);
    q.add('p/d', head('d', 20), at(1));
    q.add('p/e', head('e', 10), at(30));
    expect(drain(q)).toEqual(['d', 'e', 'b', 'c', 'a']);
    expect(q.size).toBe(0);
  });

  it('a promoted table goes first, the latest promotion before earlier ones; promoting twice keeps it first', () => {
    const q = new LoadQueue();
    for (const [i, name] of ['a', 'b', 'c', 'd'].entries()) q.add(`p/${name}`, head(name, 10 - i), at(i));
    expect(q.position('p/d')).toBe(3);
    expect(q.promote('p/d')).toBe(true);
    expect(q.promote('p/c')).toBe(true);
    expect(q.promote('p/c')).toBe(true);
    expect(q.position('p/c')).toBe(0);
    expect(q.position('p/d')).toBe(1);
    expect(q.promote('p/zz')).toBe(false);
    expect(drain(q)).toEqual(['c', 'd', 'a', 'b']);
  });

  it('removing or replacing an entry (a table dropped, or created again under another id) leaves no stale one', () => {
    const q = new LoadQueue();
    q.add('p/a', head('a', 3), at(1));
    q.add('p/b', head('b', 2), at(2));
    q.add('p/c', head('c', 1), at(3));
    expect(q.take()?.name).toBe('a');
    expect(q.remove('p/b')?.name).toBe('b');
    q.add('p/c', head('c', 0, 'id-c2'), null);
    expect(q.get('p/c')?.id).toBe('id-c2');
    expect(q.size).toBe(1);
    expect(q.take()?.id).toBe('id-c2');
    expect(q.take()).toBeUndefined();
    expect(q.position('p/c')).toBeUndefined();
  });
});
