/**
 * Compares what a doc example printed with the `output` block the doc shows under it.
 *
 * JSON output (`json output`): the printed text is read as a sequence of JSON values (curl
 * prints one body after another without a newline) and compared value by value with the
 * shown ones. What a doc cannot know is masked:
 * - an id (`offer_4fZk2QmT8xWb1nLp7yRc3sDv`: a lowercase prefix, `_`, 12+ letters or digits)
 *   matches any id with the same prefix;
 * - an ISO 8601 UTC time matches any such time;
 * - a string with `…` in it matches any string with the parts around the `…`
 *   (`"sk_test_…"`, `"eyJ…"`, `"…"`);
 * - a bare `…` as a value matches any value, as an array element (last) any further
 *   elements, as an object member any further members. Without it an object must have
 *   exactly the keys shown.
 * Text output (any other language): line by line, with the same masks and `…` wildcards.
 */
const ANY = '\u0000…any';
const REST = '\u0000…rest';

/** An ISO 8601 UTC time, and an id (lowercase prefix, `_`, 12+ letters or digits): whole values here, words in text output. */
const TIME_PATTERN = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z`;
const ID_PATTERN = String.raw`([a-z]+(?:_[a-z]+)*?)_[A-Za-z0-9]{12,}`;
const TIME = new RegExp(`^${TIME_PATTERN}$`);
const ID = new RegExp(`^${ID_PATTERN}$`);

/** Splits concatenated JSON texts (`{…}{…}`, `{…}\n[…]`) into values. */
export function parseJsonSequence(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) {
          values.push(JSON.parse(text.slice(start, i + 1)));
          start = -1;
        }
      }
      continue;
    }
    if (c === '"') {
      inString = true;
      if (depth === 0) start = i;
    } else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        values.push(JSON.parse(text.slice(start, i + 1)));
        start = -1;
      }
    } else if (depth === 0 && c !== undefined && !/\s/.test(c)) {
      // a top-level scalar: up to the next whitespace or bracket
      let j = i;
      while (j < text.length && !/[\s{}[\]"]/.test(text[j] ?? '')) j++;
      values.push(JSON.parse(text.slice(i, j)));
      i = j - 1;
    }
  }
  if (depth !== 0 || inString) throw new Error('the output ends inside a JSON value');
  return values;
}

/** The shown JSON with its bare `…` turned into markers, then parsed. */
export function parseShownJson(text: string): unknown[] {
  let out = '';
  const stack: string[] = [];
  let last = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      last = '"';
      continue;
    }
    if (c === '{' || c === '[') stack.push(c);
    if (c === '}' || c === ']') stack.pop();
    if (c === '…') {
      out += stack.at(-1) === '{' && (last === '{' || last === ',') ? `${JSON.stringify(REST)}: true` : JSON.stringify(ANY);
      last = 'v';
      continue;
    }
    out += c;
    if (!/\s/.test(c)) last = c;
  }
  return parseJsonSequence(out);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function matchesString(shown: string, actual: string): boolean {
  if (shown.includes('…')) return new RegExp(`^${shown.split('…').map(escape).join('[\\s\\S]*')}$`).test(actual);
  if (TIME.test(shown)) return TIME.test(actual);
  const id = ID.exec(shown);
  if (id) return new RegExp(`^${escape(id[1] ?? '')}_[A-Za-z0-9]{8,}$`).test(actual);
  return shown === actual;
}

const show = (v: unknown): string => (v === undefined ? 'nothing' : JSON.stringify(v));

/** The first difference between a shown value and a printed one, as `path: shown … printed …`; undefined when they match. */
export function jsonDifference(shown: unknown, actual: unknown, path = '$'): string | undefined {
  if (shown === ANY) return undefined;
  if (typeof shown === 'string') {
    return typeof actual === 'string' && matchesString(shown, actual)
      ? undefined
      : `${path}: shown ${show(shown)}, printed ${show(actual)}`;
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return `${path}: shown an array, printed ${show(actual)}`;
    const open = shown.at(-1) === ANY;
    const fixed = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < fixed.length : actual.length !== fixed.length)
      return `${path}: shown ${fixed.length}${open ? ' or more' : ''} elements, printed ${actual.length}`;
    for (let i = 0; i < fixed.length; i++) {
      const d = jsonDifference(fixed[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof shown === 'object' && shown !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return `${path}: shown an object, printed ${show(actual)}`;
    const s = shown as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const key of Object.keys(s)) {
      if (key === REST) continue;
      if (!(key in a)) return `${path}.${key}: shown ${show(s[key])}, printed nothing (no such field)`;
      const d = jsonDifference(s[key], a[key], `${path}.${key}`);
      if (d) return d;
    }
    if (!(REST in s)) {
      const extra = Object.keys(a).filter((k) => !(k in s));
      if (extra.length > 0) return `${path}: printed fields the doc does not show: ${extra.join(', ')}`;
    }
    return undefined;
  }
  return Object.is(shown, actual) ? undefined : `${path}: shown ${show(shown)}, printed ${show(actual)}`;
}

function maskText(line: string): string {
  return line
    .replace(new RegExp(TIME_PATTERN, 'g'), '<time>')
    .replace(new RegExp(String.raw`\b${ID_PATTERN}\b`, 'g'), '$1_<id>')
    .trimEnd();
}

function textDifference(shown: string, printed: string): string | undefined {
  const s = shown.trimEnd().split('\n').map(maskText);
  const p = printed.trimEnd().split('\n').map(maskText);
  for (let i = 0; i < Math.max(s.length, p.length); i++) {
    const want = s[i];
    const got = p[i];
    if (want === undefined) return `line ${i + 1}: printed ${JSON.stringify(got)}, the doc shows no more lines`;
    if (got === undefined) return `line ${i + 1}: shown ${JSON.stringify(want)}, printed nothing`;
    if (!matchesString(want, got)) return `line ${i + 1}: shown ${JSON.stringify(want)}, printed ${JSON.stringify(got)}`;
  }
  return undefined;
}

/** The first difference between a doc's `output` block and what its example printed; undefined when they agree. */
export function outputDifference(lang: string, shown: string, printed: string): string | undefined {
  if (lang !== 'json') return textDifference(shown, printed);
  const want = parseShownJson(shown);
  let got: unknown[];
  try {
    got = parseJsonSequence(printed);
  } catch (err) {
    return `printed output is not JSON (${(err as Error).message}): ${printed.slice(0, 500)}`;
  }
  if (want.length !== got.length) return `shown ${want.length} JSON value(s), printed ${got.length}: ${printed.slice(0, 500)}`;
  for (let i = 0; i < want.length; i++) {
    const d = jsonDifference(want[i], got[i], want.length > 1 ? `$${i + 1}` : '$');
    if (d) return d;
  }
  return undefined;
}
