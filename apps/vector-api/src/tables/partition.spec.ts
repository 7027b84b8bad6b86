import { loadConfig } from '@app/platform';
import { VectorConfig } from '../config';
import {
  murmurHash2,
  ownsTable,
  parsePartition,
  partitionOf,
  partitionOfHash,
  splitClientsLines,
  splitClientsParts,
} from './partition';

/*
 * Every expected value below was computed outside this code, by NGINX's own C (ngx_murmur_hash2
 * and the split_clients bounds and lookup, copied verbatim) in scripts/vector-partitions/split-clients-reference.c:
 *
 *   gcc -O2 -o /tmp/split-clients-reference scripts/vector-partitions/split-clients-reference.c
 *   /tmp/split-clients-reference <n> <name>...   # "<name> <hash> <part>" per name
 *   /tmp/split-clients-reference <n> --bounds    # the parts' upper bounds
 *
 * and pasted here. scripts/vector-partitions/verify-nginx.ts checks the same against a running nginx.
 */
const NAMES = [
  '',
  'a',
  'ab',
  'abc',
  'abcd',
  'abcde',
  'abcdef',
  'abcdefg',
  'articles',
  'docs_2024-v1',
  'images-prod',
  'embeddings_en',
  'user-42',
  'x'.repeat(64),
  'tablé', // non-ASCII: NGINX hashes the UTF-8 bytes
];

/** `/tmp/split-clients-reference 2 <NAMES>`, the hash column. */
const HASHES = [
  0, 2456313694, 446775395, 324500635, 646393889, 1594468574, 1271458169, 4188131059, 2365325093, 1365195476, 3294808011,
  1606191996, 3766944517, 3885932220, 1498229370,
];

/** `/tmp/split-clients-reference <n> <NAMES>`, the part column. */
const PARTS: Record<number, number[]> = {
  1: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  2: [1, 2, 1, 1, 1, 1, 1, 2, 2, 1, 2, 1, 2, 2, 1],
  3: [1, 2, 1, 1, 1, 2, 1, 3, 2, 1, 3, 2, 3, 3, 2],
  4: [1, 3, 1, 1, 1, 2, 2, 4, 3, 2, 4, 2, 4, 4, 2],
  7: [1, 5, 1, 1, 2, 3, 3, 7, 4, 3, 6, 3, 7, 7, 3],
  16: [1, 10, 2, 2, 3, 6, 5, 16, 9, 6, 13, 6, 15, 15, 6],
  64: [1, 37, 7, 5, 10, 24, 19, 63, 36, 21, 50, 24, 57, 58, 23],
};

/** `/tmp/split-clients-reference <n> --bounds`, without the last part's 0 ("*"). */
const BOUNDS: Record<number, number[]> = {
  2: [2147483647],
  3: [1431512599, 2863025198],
  4: [1073741823, 2147483646, 3221225469],
  7: [613321329, 1227072155, 1840393484, 2454144310, 3067465639, 3681216465],
};

/** `/tmp/split-clients-reference 7 table-0 … table-199`, the parts concatenated. */
const TABLES_0_199_OF_7 =
  '41643526541544223353763447773342452527521353333151532667374272556464167457125635331134346263424125247532372371666275551712357521163321342547446344462754644437625171732547354113464722473153622312767466';

/** `/tmp/split-clients-reference 64 table-0 … table-99`, the part column. */
const TABLES_0_99_OF_64 = [
  33, 9, 55, 36, 24, 41, 14, 51, 44, 28, 3, 42, 31, 28, 17, 16, 23, 26, 43, 26, 61, 51, 22, 36, 31, 59, 56, 64, 21, 21, 29, 12,
  33, 46, 17, 38, 14, 62, 45, 17, 8, 25, 40, 24, 27, 25, 20, 10, 44, 1, 46, 25, 10, 50, 47, 63, 21, 62, 32, 17, 56, 16, 41, 43,
  51, 34, 51, 34, 5, 55, 63, 34, 39, 63, 1, 13, 45, 54, 25, 40, 23, 25, 1, 2, 28, 35, 20, 28, 55, 15, 52, 22, 31, 12, 31, 3, 11,
  44, 11, 35,
];

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('murmurHash2 (ngx_murmur_hash2)', () => {
  it.each(NAMES.map((name, i) => [name, HASHES[i]] as const))('hashes %j to %d, as NGINX does', (name, hash) => {
    expect(murmurHash2(utf8(name))).toBe(hash);
  });
});

describe('partitionOf (split_clients over n equal parts)', () => {
  it.each(Object.entries(PARTS).map(([n, parts]) => [Number(n), parts] as const))('n = %d: the parts NGINX picks', (n, parts) => {
    expect(NAMES.map((name) => partitionOf(name, n))).toEqual(parts);
  });

  it('table-0 … table-199 over 7 parts and table-0 … table-99 over 64, as NGINX picks them', () => {
    const of7 = Array.from({ length: 200 }, (_, i) => partitionOf(`table-${i}`, 7)).join('');
    expect(of7).toBe(TABLES_0_199_OF_7);
    expect(Array.from({ length: 100 }, (_, i) => partitionOf(`table-${i}`, 64))).toEqual(TABLES_0_99_OF_64);
  });

  it.each(Object.entries(BOUNDS).map(([n, b]) => [Number(n), b] as const))(
    'n = %d: a hash just below a bound is in that part, the bound itself in the next',
    (n, upper) => {
      upper.forEach((bound, i) => {
        expect(partitionOfHash(bound - 1, n)).toBe(i + 1);
        expect(partitionOfHash(bound, n)).toBe(i + 2);
      });
      expect(partitionOfHash(0, n)).toBe(1);
      expect(partitionOfHash(0xffffffff, n)).toBe(n);
    },
  );
});

describe('splitClientsParts / splitClientsLines', () => {
  it('doubling n splits every part in two in place: old part k becomes parts 2k − 1 and 2k', () => {
    for (const n of [3, 7, 25, 32]) {
      let misplaced = 0;
      for (let i = 0, h = 12345; i < 200_000; i++, h = (Math.imul(h, 1664525) + 1013904223) >>> 0) {
        const was = partitionOfHash(h, n);
        const now = partitionOfHash(h, 2 * n);
        if (now !== 2 * was - 1 && now !== 2 * was) misplaced++;
      }
      // Only a hash within a few values of a bound could be (NGINX rounds each part's bound down).
      expect({ n, misplaced }).toEqual({ n, misplaced: 0 });
    }
  });

  it('n equal shares in hundredths of a percent summing to 100 %, the last part "*"', () => {
    expect(splitClientsParts(1)).toEqual([10000]);
    expect(splitClientsParts(3)).toEqual([3333, 3333, 3334]);
    expect(splitClientsParts(7)).toEqual([1428, 1429, 1428, 1429, 1428, 1429, 1429]);
    expect(splitClientsParts(64).reduce((a, b) => a + b)).toBe(10000);
    expect(new Set(splitClientsParts(64))).toEqual(new Set([157, 156]));
    expect(splitClientsLines(3, (p) => `vector_p${p}`)).toEqual(['33.33% vector_p1;', '33.33% vector_p2;', '* vector_p3;']);
    expect(splitClientsLines(64, (p) => `g${p}`)[0]).toBe('1.56% g1;');
    expect(splitClientsLines(2, (p) => `g${p}`)[0]).toBe('50.00% g1;');
    expect(splitClientsLines(1, (p) => `g${p}`)).toEqual(['* g1;']);
    expect(() => splitClientsParts(65)).toThrow(RangeError);
    expect(() => splitClientsParts(0)).toThrow(RangeError);
  });
});

describe('parsePartition / ownsTable', () => {
  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['2/4', { index: 2, count: 4 }],
    ['64/64', { index: 64, count: 64 }],
  ])('reads %s', (text, partition) => {
    expect(parsePartition(text)).toEqual(partition);
  });

  it.each(['', '0/2', '3/2', '1/65', '65/65', '1/0', '01/2', '1 / 2', '1/2/3', '-1/2', '1.5/2', 'a/b', '2'])(
    'refuses %j',
    (text) => {
      expect(parsePartition(text)).toBeUndefined();
    },
  );

  it('an unpartitioned instance owns every table; a partitioned one only those partitionOf gives it', () => {
    expect(ownsTable(undefined, 'articles')).toBe(true);
    expect(ownsTable({ index: 2, count: 2 }, 'articles')).toBe(true);
    expect(ownsTable({ index: 1, count: 2 }, 'articles')).toBe(false);
    expect(ownsTable({ index: 1, count: 1 }, 'articles')).toBe(true);
  });
});

describe('VECTOR_PARTITION', () => {
  const env = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' };

  it('is read as i/n; unset is every table', () => {
    expect(loadConfig(VectorConfig, { ...env, VECTOR_PARTITION: '2/3' }).partition).toEqual({ index: 2, count: 3 });
    expect(loadConfig(VectorConfig, env).partition).toBeUndefined();
  });

  it.each(['0/2', '3/2', '1/65', 'all'])('stops the boot on %j, naming the variable and the form', (value) => {
    expect(() => loadConfig(VectorConfig, { ...env, VECTOR_PARTITION: value })).toThrow(
      `VECTOR_PARTITION must be i/n with 1 ≤ i ≤ n ≤ 64 (e.g. 2/4) (got "${value}")`,
    );
  });
});
