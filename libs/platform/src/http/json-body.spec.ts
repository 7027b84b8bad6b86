import fc from 'fast-check';
import { isDomainError } from '../errors/domain-error';
import { checkJsonKeys, parseJsonBody } from './json-body';

const problem = (text: string): { code: string; param: string | undefined } | undefined => {
  const error = checkJsonKeys(text);
  return error && { code: error.code, param: error.param };
};

describe('checkJsonKeys', () => {
  it('finds a duplicate key and names its path', () => {
    expect(problem('{"amount":1,"amount":2}')).toEqual({ code: 'parameter_duplicate', param: 'amount' });
    expect(problem('{"a":{"b":[{"x":1},{"x":1,"y":2,"x":3}]}}')).toEqual({ code: 'parameter_duplicate', param: 'a.b[1].x' });
    expect(problem('{"rows":[[{"k":1}],[{"k":1},{"k":2,"k":2}]]}')).toEqual({
      code: 'parameter_duplicate',
      param: 'rows[1][1].k',
    });
    expect(problem('{"3":1,"3":2}')).toEqual({ code: 'parameter_duplicate', param: '[3]' });
  });

  it('compares keys decoded ("a" and "\\u0061" are one key)', () => {
    expect(problem('{"a":1,"\\u0061":2}')).toEqual({ code: 'parameter_duplicate', param: 'a' });
    expect(problem('{"a\\"b":1,"a\\u0022b":2}')).toEqual({ code: 'parameter_duplicate', param: 'a"b' });
  });

  it('refuses prototype keys anywhere', () => {
    expect(problem('{"__proto__":{}}')).toEqual({ code: 'parameter_unknown', param: '__proto__' });
    expect(problem('{"x":[1,{"constructor":1}]}')).toEqual({ code: 'parameter_unknown', param: 'x[1].constructor' });
    expect(problem('{"\\u005f_proto__":1}')).toEqual({ code: 'parameter_unknown', param: '__proto__' });
  });

  it('does not mistake strings, escapes, siblings or nesting for duplicates', () => {
    for (const text of [
      '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}',
      '{"a":"\\"a\\":1,","b":"\\\\","c":"\\\\\\""}',
      '{"a":"{\\"a\\":1}","b":"[","c":"]"}',
      '[{"a":1},{"a":1}]',
      '{"":1,"a":{"":2}}',
      ' { "a" : 1 , "b" : [ 1 , 2 ] } ',
      '{"a":[],"b":{},"c":[[],{}]}',
    ]) {
      expect({ text, problem: problem(text) }).toEqual({ text, problem: undefined });
    }
  });
});

describe('checkJsonKeys on generated JSON', () => {
  const hasForbidden = (text: string): boolean => /"(__proto__|constructor|prototype)"\s*:/.test(text);

  it('finds nothing in what JSON.stringify writes (keys are unique there), compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        if (text === undefined || hasForbidden(text)) return;
        expect(checkJsonKeys(text)).toBeUndefined();
      }),
      { seed: 14, numRuns: 2_000 },
    );
  });

  it('finds a key repeated in any object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.nat(), (object, pick) => {
        const keys = Object.keys(object);
        const key = keys[pick % keys.length];
        const text = JSON.stringify({ wrapper: [object] }).replace(/\}\]\}$/, () => `,${JSON.stringify(key)}:0}]}`);
        if (hasForbidden(text)) return;
        expect(checkJsonKeys(text)?.code).toBe('parameter_duplicate');
      }),
      { seed: 14, numRuns: 1_000 },
    );
  });
});

describe('parseJsonBody', () => {
  it('parses JSON (with a byte order mark) and refuses empty or malformed bodies as invalid_json', () => {
    expect(parseJsonBody(Buffer.from('\ufeff{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(parseJsonBody('"x"')).toBe('x');
    for (const body of ['', '  ', '{', '{"a":1,}', "{'a':1}"]) {
      let error: unknown;
      try {
        parseJsonBody(body);
      } catch (err) {
        error = err;
      }
      expect(isDomainError(error) && error.code).toBe('invalid_json');
    }
  });

  it('keeps __proto__ from reaching an object', () => {
    expect(() => parseJsonBody('{"__proto__":{"polluted":true}}')).toThrow('Received unknown parameter: __proto__');
  });
});
