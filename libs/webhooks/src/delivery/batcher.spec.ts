import { Batcher } from './batcher';

describe('Batcher', () => {
  it('runs the calls made within the window as one batch, results in order', async () => {
    const batches: string[][] = [];
    const b = new Batcher<string, string>(
      (items) => {
        batches.push([...items]);
        return Promise.resolve(items.map((i) => i.toUpperCase()));
      },
      { maxBatch: 10, windowMs: 5 },
    );
    const out = await Promise.all(['a', 'b', 'c'].map((x) => b.add(x)));
    expect(out).toEqual(['A', 'B', 'C']);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('sends a full batch at once and never puts two items of one key in a batch', async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(
      (items) => {
        batches.push([...items]);
        return Promise.resolve(items.map((i) => i * 2));
      },
      { maxBatch: 2, windowMs: 1_000, key: (i) => String(i % 10) },
    );
    const out = await Promise.all([1, 2, 3, 13, 4].map((x) => b.add(x)).slice(0, 4));
    expect(out).toEqual([2, 4, 6, 26]);
    expect(batches.slice(0, 2)).toEqual([
      [1, 2],
      [3], // 13 has 3's key: 3 goes alone, 13 starts the next batch
    ]);
    b.flush();
  });

  it('rejects every item of a failed batch', async () => {
    const b = new Batcher<number, number>(() => Promise.reject(new Error('database down')), { maxBatch: 5, windowMs: 1 });
    await expect(Promise.all([b.add(1), b.add(2)])).rejects.toThrow('database down');
  });
});
