import { DomainError } from '../errors/domain-error';
import { joinPath } from './validation';

/**
 * Keys that must never reach an object: JSON.parse makes `__proto__` an own property, and
 * code that copies it key by key (Object.assign, spreads into class instances, merges)
 * would replace the target's prototype. `constructor` and `prototype` are refused with it
 * (the validation pipe refuses them too); all three answer `parameter_unknown`.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

interface Frame {
  readonly object: boolean;
  /** Object: the keys seen so far (the first one alone until a second arrives). */
  first: string | undefined;
  keys: Set<string> | undefined;
  /** Object: the key whose value is being read; array: the index of the current element. */
  key: string;
  index: number;
  /** Object: the next string is a key (after `{` or `,`). */
  expectKey: boolean;
}

/** The dotted/indexed path of the value being read, as the validation pipe names params. */
function pathOf(stack: readonly Frame[], lastKey: string): string {
  let path = '';
  for (let i = 0; i < stack.length; i++) {
    const frame = stack[i];
    const last = i === stack.length - 1;
    if (frame.object) path = joinPath(path, last ? lastKey : frame.key);
    else if (!last) path = `${path}[${frame.index}]`;
  }
  return path;
}

/** The end quote of the string starting at `start`: the next one not escaped by an odd run of backslashes. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    for (let j = end - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** A key's value: decoded when it has escapes ("a" and "\u0061" are one key). */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end + 1)) as string) : raw;
}

/**
 * The error for the first duplicate or forbidden key, with its path: a precise walk that
 * also tracks array indexes. Run only once `hasKeyProblem` found one.
 */
function describeKeyProblem(text: string): DomainError | undefined {
  const stack: Frame[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const frame = stack[stack.length - 1];
      if (frame?.object && frame.expectKey) {
        const key = keyAt(text, i, end);
        frame.expectKey = false;
        if (FORBIDDEN_KEYS.has(key)) {
          const param = pathOf(stack, key);
          return new DomainError('parameter_unknown', `Received unknown parameter: ${param}`, { param });
        }
        if (frame.first === undefined) frame.first = key;
        else {
          frame.keys ??= new Set([frame.first]);
          if (frame.keys.has(key)) {
            const param = pathOf(stack, key);
            return new DomainError(
              'parameter_duplicate',
              `Duplicate parameter: ${param} (each key may appear once in a JSON object).`,
              { param },
            );
          }
          frame.keys.add(key);
        }
        frame.key = key;
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      stack.push({ object: c === OPEN_OBJECT, first: undefined, keys: undefined, key: '', index: 0, expectKey: true });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
    } else if (c === COMMA) {
      const frame = stack[stack.length - 1];
      if (frame?.object) frame.expectKey = true;
      else if (frame) frame.index++;
    }
    i++;
  }
  return undefined;
}

/** The characters the fast pass stops at: numbers, literals, commas and whitespace are jumped over natively. */
const STRUCTURE = /["{}[\]]/g;
const COLON = 0x3a;

/**
 * Whether a body that JSON.parse accepted has an object naming a key twice (JSON.parse
 * keeps the last silently — "amount" given twice in a money request) or a prototype key.
 * One linear pass that only stops at quotes and brackets (an array of numbers, the bulk of
 * a batch of embeddings, is crossed in one regex step); a string is a key when a colon follows it.
 */
function hasKeyProblem(text: string): boolean {
  const stack: Array<Set<string> | null> = []; // a Set per open object, null per array
  STRUCTURE.lastIndex = 0;
  for (let match = STRUCTURE.exec(text); match !== null; match = STRUCTURE.exec(text)) {
    const i = match.index;
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      let next = end + 1;
      while (text.charCodeAt(next) <= 0x20) next++; // JSON whitespace
      const keys = stack[stack.length - 1];
      if (text.charCodeAt(next) === COLON && keys) {
        const key = keyAt(text, i, end);
        if (FORBIDDEN_KEYS.has(key) || keys.has(key)) return true;
        keys.add(key);
      }
      STRUCTURE.lastIndex = end + 1;
    } else if (c === OPEN_OBJECT) stack.push(new Set());
    else if (c === OPEN_ARRAY) stack.push(null);
    else stack.pop();
  }
  return false;
}

/**
 * Refuses, in a body JSON.parse accepted, an object that names a key twice
 * (`parameter_duplicate`) and the prototype keys (`parameter_unknown`), naming the key's
 * path (`rows[3].metadata.a`). Linear in the text.
 */
export function checkJsonKeys(text: string): DomainError | undefined {
  return hasKeyProblem(text) ? describeKeyProblem(text) : undefined;
}

/**
 * The platform's parser of `application/json` bodies (every route of every service):
 * JSON.parse, then `checkJsonKeys`. An empty or malformed body is `invalid_json`.
 */
export function parseJsonBody(body: Buffer | string): unknown {
  let text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
  if (text.trim() === '') {
    throw new DomainError('invalid_json', "The request body is empty but Content-Type is 'application/json'.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid JSON.');
  }
  // a scalar or a flat array has no keys to check
  if (typeof value === 'object' && value !== null) {
    const problem = checkJsonKeys(text);
    if (problem) throw problem;
  }
  return value;
}
