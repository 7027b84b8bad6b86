/**
 * A small assembler for the subset of the WebAssembly text format (WAT) the scan kernel is
 * written in, so the kernel ships as readable source and no binary or build tool (wabt,
 * AssemblyScript) is needed: the bytes are produced at load time in well under a millisecond.
 *
 * Supported: one `(module …)` with an imported memory `(import "m" "n" (memory min))` and
 * `(func $name (export "x")? (param $p type)* (result type)? (local $l type)* instr*)`.
 * Instructions are written linearly (no folded s-expressions); `block`/`loop` take an
 * optional `$label` (void block type) and close with `end`; `br`/`br_if` name a label;
 * memory instructions take optional `offset=N align=N`. The opcode table lists exactly the
 * instructions the kernel uses; anything else is rejected with its name. The source is valid
 * WAT: `wat2wasm --enable-simd` produces the same module.
 *
 * Encoding reference: https://webassembly.github.io/spec/core/binary/ and the SIMD proposal's
 * opcode table (https://github.com/WebAssembly/simd/blob/main/proposals/simd/BinarySIMD.md).
 */

type ValType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128';
const VALTYPE: Record<ValType, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b };

/** Plain opcodes without immediates. */
const PLAIN: Readonly<Record<string, number>> = {
  unreachable: 0x00,
  nop: 0x01,
  return: 0x0f,
  drop: 0x1a,
  'i32.eqz': 0x45,
  'i32.eq': 0x46,
  'i32.ne': 0x47,
  'i32.lt_u': 0x49,
  'i32.gt_u': 0x4b,
  'i32.le_u': 0x4d,
  'i32.ge_u': 0x4f,
  'i32.add': 0x6a,
  'i32.sub': 0x6b,
  'i32.mul': 0x6c,
  'i32.and': 0x71,
  'i32.or': 0x72,
  'i32.shl': 0x74,
  'i32.shr_u': 0x76,
  'f32.add': 0x92,
  'f32.mul': 0x94,
};

/** Memory instructions: opcode (0xfd-prefixed when `simd`) and natural alignment (log2). */
const MEMORY: Readonly<Record<string, { op: number; align: number; simd?: boolean }>> = {
  'i32.load': { op: 0x28, align: 2 },
  'f32.load': { op: 0x2a, align: 2 },
  'i32.store': { op: 0x36, align: 2 },
  'f32.store': { op: 0x38, align: 2 },
  'v128.load': { op: 0x00, align: 4, simd: true },
  'v128.store': { op: 0x0b, align: 4, simd: true },
};

/** SIMD opcodes (0xfd prefix, LEB128 sub-opcode) without immediates. */
const SIMD_PLAIN: Readonly<Record<string, number>> = {
  'f32x4.splat': 0x13,
  'f32x4.add': 0xe4,
  'f32x4.sub': 0xe5,
  'f32x4.mul': 0xe6,
};

/** SIMD lane instructions: one lane-index byte. */
const SIMD_LANE: Readonly<Record<string, number>> = {
  'f32x4.extract_lane': 0x1f,
};

type Sexp = string | Sexp[];

export class WatSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatSyntaxError';
  }
}

function tokenize(source: string): string[] {
  const text = source.replace(/\(;[\s\S]*?;\)/g, ' ').replace(/;;[^\n]*/g, ' ');
  const tokens: string[] = [];
  const re = /\s*(\(|\)|"(?:[^"\\]|\\.)*"|[^\s()]+)/gy;
  let at = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    tokens.push(m[1]);
    at = re.lastIndex;
  }
  const rest = text.slice(at);
  if (rest.trim() !== '') throw new WatSyntaxError(`cannot read WAT near "${rest.trim().slice(0, 40)}"`);
  return tokens;
}

function parse(tokens: string[]): Sexp {
  let i = 0;
  const read = (): Sexp => {
    const t = tokens[i++];
    if (t === undefined) throw new WatSyntaxError('unexpected end of WAT');
    if (t === ')') throw new WatSyntaxError('unexpected ")"');
    if (t !== '(') return t;
    const list: Sexp[] = [];
    while (tokens[i] !== ')') {
      if (i >= tokens.length) throw new WatSyntaxError('missing ")"');
      list.push(read());
    }
    i++;
    return list;
  };
  const tree = read();
  if (i !== tokens.length) throw new WatSyntaxError('text after the module');
  return tree;
}

const uleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
};

const sleb = (value: number): number[] => {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
};

const utf8 = (s: string): number[] => [...Buffer.from(s, 'utf8')];
const name = (s: string): number[] => {
  const b = utf8(s);
  return [...uleb(b.length), ...b];
};
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const unquote = (s: string): string => {
  if (!/^".*"$/.test(s)) throw new WatSyntaxError(`expected a string, got ${s}`);
  return s.slice(1, -1);
};
const isList = (x: Sexp | undefined): x is Sexp[] => Array.isArray(x);
const head = (x: Sexp | undefined): string | undefined => (isList(x) && typeof x[0] === 'string' ? x[0] : undefined);

function valType(t: Sexp | undefined): number {
  if (typeof t !== 'string' || !(t in VALTYPE)) throw new WatSyntaxError(`unknown value type ${String(t)}`);
  return VALTYPE[t as ValType];
}

function integer(t: string | undefined, what: string): number {
  if (t === undefined || !/^-?(0x[0-9a-f_]+|[0-9_]+)$/i.test(t))
    throw new WatSyntaxError(`${what}: expected an integer, got ${String(t)}`);
  const negative = t.startsWith('-');
  const digits = t.replace(/^-/, '').replace(/_/g, '');
  const n = Number(digits);
  return negative ? -n : n;
}

interface FuncDef {
  readonly name: string | undefined;
  readonly exportName: string | undefined;
  readonly params: number[];
  readonly results: number[];
  readonly locals: number[];
  readonly localNames: Map<string, number>;
  readonly body: string[];
}

function readFunc(fields: Sexp[]): FuncDef {
  let i = 1;
  let fname: string | undefined;
  if (typeof fields[i] === 'string' && (fields[i] as string).startsWith('$')) fname = fields[i++] as string;
  let exportName: string | undefined;
  const params: number[] = [];
  const results: number[] = [];
  const locals: number[] = [];
  const localNames = new Map<string, number>();
  const declare = (decl: Sexp[], into: number[]): void => {
    if (typeof decl[1] === 'string' && decl[1].startsWith('$')) {
      localNames.set(decl[1], params.length + locals.length);
      into.push(valType(decl[2]));
    } else for (const t of decl.slice(1)) into.push(valType(t));
  };
  for (; i < fields.length && isList(fields[i]); i++) {
    const f = fields[i] as Sexp[];
    const h = head(f);
    if (h === 'export') exportName = unquote(f[1] as string);
    else if (h === 'param') {
      if (locals.length > 0) throw new WatSyntaxError('params must precede locals');
      declare(f, params);
    } else if (h === 'result') for (const t of f.slice(1)) results.push(valType(t));
    else if (h === 'local') declare(f, locals);
    else break;
  }
  const body = fields.slice(i);
  for (const b of body) if (isList(b)) throw new WatSyntaxError(`folded instructions are not supported: (${String(b[0])} …)`);
  return { name: fname, exportName, params, results, locals, localNames, body: body as string[] };
}

function encodeBody(fn: FuncDef, funcIndex: Map<string, number>): number[] {
  const out: number[] = [];
  const labels: Array<string | undefined> = [];
  const toks = fn.body;
  const local = (t: string | undefined): number => {
    if (t === undefined) throw new WatSyntaxError('missing local');
    if (t.startsWith('$')) {
      const idx = fn.localNames.get(t);
      if (idx === undefined) throw new WatSyntaxError(`unknown local ${t}`);
      return idx;
    }
    return integer(t, 'local index');
  };
  for (let i = 0; i < toks.length; i++) {
    const op = toks[i];
    if (op === 'block' || op === 'loop') {
      let label: string | undefined;
      if (toks[i + 1]?.startsWith('$')) label = toks[++i];
      labels.push(label);
      out.push(op === 'block' ? 0x02 : 0x03, 0x40);
    } else if (op === 'end') {
      if (labels.length === 0) throw new WatSyntaxError('"end" without block');
      labels.pop();
      out.push(0x0b);
    } else if (op === 'br' || op === 'br_if') {
      const target = toks[++i];
      let depth: number;
      if (target?.startsWith('$')) {
        const at = labels.lastIndexOf(target);
        if (at < 0) throw new WatSyntaxError(`unknown label ${target}`);
        depth = labels.length - 1 - at;
      } else depth = integer(target, op);
      out.push(op === 'br' ? 0x0c : 0x0d, ...uleb(depth));
    } else if (op === 'call') {
      const target = toks[++i];
      const idx = target !== undefined ? funcIndex.get(target) : undefined;
      if (idx === undefined) throw new WatSyntaxError(`unknown function ${String(target)}`);
      out.push(0x10, ...uleb(idx));
    } else if (op === 'local.get' || op === 'local.set' || op === 'local.tee') {
      out.push({ 'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22 }[op], ...uleb(local(toks[++i])));
    } else if (op === 'i32.const') {
      out.push(0x41, ...sleb(integer(toks[++i], op)));
    } else if (op in PLAIN) {
      out.push(PLAIN[op]);
    } else if (op in MEMORY) {
      const { op: code, align: natural, simd } = MEMORY[op];
      let offset = 0;
      let align = natural;
      while (/^(offset|align)=/.test(toks[i + 1] ?? '')) {
        const [key, value] = toks[++i].split('=');
        if (key === 'offset') offset = integer(value, 'offset');
        else {
          const bytes = integer(value, 'align');
          align = Math.log2(bytes);
          if (!Number.isInteger(align) || align > natural) throw new WatSyntaxError(`bad alignment ${bytes} for ${op}`);
        }
      }
      if (simd) out.push(0xfd, ...uleb(code));
      else out.push(code);
      out.push(...uleb(align), ...uleb(offset));
    } else if (op in SIMD_PLAIN) {
      out.push(0xfd, ...uleb(SIMD_PLAIN[op]));
    } else if (op in SIMD_LANE) {
      const lane = integer(toks[++i], op);
      out.push(0xfd, ...uleb(SIMD_LANE[op]), lane);
    } else {
      throw new WatSyntaxError(`unsupported instruction ${op}`);
    }
  }
  if (labels.length > 0) throw new WatSyntaxError(`${fn.name ?? 'function'}: ${labels.length} block(s) without "end"`);
  const localDecls = fn.locals.map((t) => [1, t]);
  const body = [...vec(localDecls), ...out, 0x0b];
  return [...uleb(body.length), ...body];
}

/** Assembles WAT source (the subset above) into a WebAssembly binary module. */
export function assembleWat(source: string): Uint8Array<ArrayBuffer> {
  const tree = parse(tokenize(source));
  if (!isList(tree) || tree[0] !== 'module') throw new WatSyntaxError('expected (module …)');
  const imports: number[][] = [];
  const funcs: FuncDef[] = [];
  for (const field of tree.slice(1)) {
    const h = head(field);
    if (!isList(field)) throw new WatSyntaxError(`unexpected ${field} in module`);
    if (h === 'import') {
      const desc = field[3];
      if (!isList(desc) || desc[0] !== 'memory') throw new WatSyntaxError('only memory imports are supported');
      const min = integer(desc[1] as string, 'memory min');
      const max = typeof desc[2] === 'string' ? integer(desc[2], 'memory max') : undefined;
      const limits = max === undefined ? [0x00, ...uleb(min)] : [0x01, ...uleb(min), ...uleb(max)];
      imports.push([...name(unquote(field[1] as string)), ...name(unquote(field[2] as string)), 0x02, ...limits]);
    } else if (h === 'func') funcs.push(readFunc(field));
    else throw new WatSyntaxError(`unsupported module field ${String(h)}`);
  }
  const funcIndex = new Map<string, number>();
  funcs.forEach((f, i) => f.name !== undefined && funcIndex.set(f.name, i));

  const types: string[] = [];
  const typeOf = funcs.map((f) => {
    const sig = JSON.stringify([f.params, f.results]);
    let idx = types.indexOf(sig);
    if (idx < 0) idx = types.push(sig) - 1;
    return idx;
  });
  const typeSection = vec(
    types.map((sig) => {
      const [params, results] = JSON.parse(sig) as [number[], number[]];
      return [0x60, ...vec(params.map((p) => [p])), ...vec(results.map((r) => [r]))];
    }),
  );
  const exports = funcs.flatMap((f, i) => (f.exportName === undefined ? [] : [[...name(f.exportName), 0x00, ...uleb(i)]]));
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, typeSection),
    ...(imports.length > 0 ? section(2, vec(imports)) : []),
    ...section(3, vec(typeOf.map((t) => uleb(t)))),
    ...(exports.length > 0 ? section(7, vec(exports)) : []),
    ...section(10, vec(funcs.map((f) => encodeBody(f, funcIndex)))),
  ];
  return Uint8Array.from(bytes);
}
