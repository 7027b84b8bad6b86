import { outputDifference, parseJsonSequence, parseShownJson } from './expected-output';

describe('parseJsonSequence', () => {
  it('splits bodies printed one after another', () => {
    expect(parseJsonSequence('{"a":1}{"b":"}{"}\n[1,2] "x" 3 true')).toEqual([{ a: 1 }, { b: '}{' }, [1, 2], 'x', 3, true]);
  });
  it('refuses a cut-off value', () => {
    expect(() => parseJsonSequence('{"a":1')).toThrow(/ends inside/);
  });
});

describe('parseShownJson', () => {
  it('reads bare … as any value, any further elements and any further members', () => {
    const [v] = parseShownJson('{ "a": …, "b": [1, …], … }');
    expect(outputDifference('json', '{ "a": …, "b": [1, …], … }', '{"a":{"x":1},"b":[1,2,3],"c":4}')).toBeUndefined();
    expect(v).toBeInstanceOf(Object);
  });
});

describe('outputDifference (json)', () => {
  const body = '{"id":"pay_4fZk2QmT8xWb1nLp7yRc","created":"2026-11-21T05:00:00.000Z","key":"sk_test_abc","amount":2000}';

  it('masks ids, times and … inside strings', () => {
    expect(
      outputDifference(
        'json',
        '{"id":"pay_0000000000000000","created":"2020-01-01T00:00:00Z","key":"sk_test_…","amount":2000}',
        body,
      ),
    ).toBeUndefined();
  });

  it('names the first difference: a value, an id prefix, a missing or an extra field', () => {
    expect(outputDifference('json', '{"id":"pay_…","created":"…","key":"…","amount":2001}', body)).toMatch(
      /\$\.amount: shown 2001, printed 2000/,
    );
    expect(outputDifference('json', '{"id":"cus_0000000000000000","created":"…","key":"…","amount":2000}', body)).toMatch(
      /\$\.id/,
    );
    expect(outputDifference('json', '{"id":"…","created":"…","key":"…","amount":2000,"status":"x"}', body)).toMatch(
      /status.*no such field/,
    );
    expect(outputDifference('json', '{"id":"…","created":"…","amount":2000}', body)).toMatch(/does not show: key/);
    expect(outputDifference('json', '{"id":"…","created":"not a time","key":"…","amount":2000}', body)).toMatch(/created/);
  });

  it('compares sequences value by value and counts them', () => {
    expect(outputDifference('json', '{"a":1}\n{"b":2}', '{"a":1}{"b":2}')).toBeUndefined();
    expect(outputDifference('json', '{"a":1}', '{"a":1}{"b":2}')).toMatch(/shown 1 JSON value\(s\), printed 2/);
    expect(outputDifference('json', '[1, 2]', '[1]')).toMatch(/shown 2 elements, printed 1/);
  });

  it('says when the output is not JSON', () => {
    expect(outputDifference('json', '{"a":1}', 'curl: (7) Failed to connect')).toMatch(/not JSON/);
  });
});

describe('outputDifference (text)', () => {
  it('compares line by line with masks and … wildcards', () => {
    expect(
      outputDifference('text', 'id ptn_…\nat <time>: ok', 'id ptn_abcdefghijklmnop\nat 2026-11-21T05:00:00Z: ok\n'),
    ).toBeUndefined();
    expect(outputDifference('text', 'a\nb', 'a\nc')).toMatch(/line 2/);
    expect(outputDifference('text', 'a', 'a\nb')).toMatch(/no more lines/);
  });
});
