/**
 * Finds, by reading the sources (TypeScript's parser, no type checking), every raw SQL text
 * the code under apps/ and libs/ sends, and renders one snapshot file per source file that
 * has any: `sql/<source path without .ts>.sql` (docs/decisions.md 210). Used by
 * `npm run sql:snapshots` (scripts/sql-snapshots.ts) and scripts/sql-snapshots.spec.ts.
 *
 * A raw SQL text is:
 * - a tagged template `Prisma.sql\`…\``, `x.$queryRaw\`…\`` or `x.$executeRaw\`…\``;
 * - the first argument of `x.$queryRawUnsafe(…)`, `x.$executeRawUnsafe(…)` or `x.query(…)`
 *   (a pg pool or client) when it is SQL text: a string or template literal, a `const` of the
 *   file holding one, or `new SomeQuery(<literal>)` (the COPY reader); `.query(…)` counts
 *   only when the text starts with an SQL keyword.
 *
 * Each statement is preceded by `-- <Class>.<method>` (or `-- <function>`, or the `const`
 * holding it) and rendered as written, dedented, trailing spaces trimmed. In a tagged
 * template an interpolated value becomes `$1`, `$2`… in order; an interpolated fragment
 * (`Prisma.sql`, `Prisma.join`, `Prisma.raw`, `Prisma.empty`, or a name holding one) becomes
 * `/* ${expression} *\/`, SQL spliced in. In a plain template every interpolation is spliced
 * text, so it is shown as such too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../source-files';

export const SNAPSHOT_DIR = 'sql';
export const SOURCE_DIRS: readonly string[] = ['apps', 'libs'];
export const COMMAND = 'npm run sql:snapshots';

const SQL_START =
  /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|COPY|LISTEN|UNLISTEN|NOTIFY|BEGIN|COMMIT|ROLLBACK|CREATE|ALTER|DROP|SET|LOCK|TRUNCATE|VACUUM|ANALYZE)\b/i;
const TAGGED = new Set(['$queryRaw', '$executeRaw']);
const UNSAFE = new Set(['$queryRawUnsafe', '$executeRawUnsafe']);
const FRAGMENT_CALLS = new Set(['sql', 'join', 'raw']);

/** The snapshot path of a source path: `libs/x/src/y.ts` → `sql/libs/x/src/y.sql`. */
export function snapshotPath(source: string): string {
  return `${SNAPSHOT_DIR}/${source.replace(/\.tsx?$/, '')}.sql`;
}

interface Statement {
  readonly pos: number;
  readonly where: string;
  readonly text: string;
}

const isPrismaMember = (node: ts.Node, names: ReadonlySet<string> | string): boolean =>
  ts.isPropertyAccessExpression(node) &&
  ts.isIdentifier(node.expression) &&
  node.expression.text === 'Prisma' &&
  (typeof names === 'string' ? node.name.text === names : names.has(node.name.text));

const memberName = (node: ts.Node): string | undefined => (ts.isPropertyAccessExpression(node) ? node.name.text : undefined);

/** The declaration `name` refers to at `from`: the nearest enclosing scope's variable or parameter of that name. */
function declarationOf(name: string, from: ts.Node): ts.VariableDeclaration | ts.ParameterDeclaration | undefined {
  for (let scope: ts.Node | undefined = from.parent; scope; scope = scope.parent) {
    if (ts.isFunctionLike(scope)) {
      const parameter = scope.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (parameter) return parameter;
    }
    if (ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope) || ts.isCaseClause(scope)) {
      for (const statement of scope.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        const found = statement.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === name);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** Whether `node` is (or names a variable holding) an SQL fragment rather than a value. */
function isFragment(node: ts.Expression, seen = new Set<ts.Node>()): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node))
    return isFragment(node.expression, seen);
  if (ts.isConditionalExpression(node)) return isFragment(node.whenTrue, seen) && isFragment(node.whenFalse, seen);
  if (ts.isTaggedTemplateExpression(node)) return isPrismaMember(node.tag, 'sql');
  if (ts.isCallExpression(node)) return isPrismaMember(node.expression, FRAGMENT_CALLS);
  if (isPrismaMember(node, 'empty')) return true;
  if (ts.isIdentifier(node)) {
    const declaration = declarationOf(node.text, node);
    if (!declaration) return false;
    if (declaration.type) return /^(Prisma\.)?Sql$/.test(declaration.type.getText());
    if (ts.isParameter(declaration)) return isFragmentElement(declaration, seen);
    return declaration.initializer !== undefined && isFragment(declaration.initializer, seen);
  }
  return false;
}

const FRAGMENT_ARRAY = /^(readonly )?(Prisma\.)?Sql\[\]$|^(Readonly)?Array<(Prisma\.)?Sql>$/;

/** Whether an untyped callback parameter is an element of an array of fragments: `carried.map((statement) => …)`. */
function isFragmentElement(parameter: ts.ParameterDeclaration, seen: Set<ts.Node>): boolean {
  const callback = parameter.parent;
  const call = callback.parent;
  if (callback.parameters[0] !== parameter || !ts.isCallExpression(call) || call.arguments[0] !== callback) return false;
  if (!ts.isPropertyAccessExpression(call.expression) || !['map', 'flatMap', 'forEach'].includes(call.expression.name.text))
    return false;
  const array = call.expression.expression;
  if (!ts.isIdentifier(array) || seen.has(array)) return false;
  seen.add(array);
  const declaration = declarationOf(array.text, array);
  return declaration?.type !== undefined && FRAGMENT_ARRAY.test(declaration.type.getText());
}

/** Lines of `text` without the indentation they share (the first line's own, when the text starts right after the quote, excepted). */
function dedent(text: string): string {
  const lines = text.split('\n').map((line) => line.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const startsAtQuote = !/^\s*\n/.test(text) && lines.length > 0;
  const measured = lines.filter((line, i) => line !== '' && !(startsAtQuote && i === 0));
  const indent = Math.min(...measured.map((line) => /^ */.exec(line)?.[0].length ?? 0));
  return lines
    .map((line, i) => (startsAtQuote && i === 0 ? line.trimStart() : line.slice(Number.isFinite(indent) ? indent : 0)))
    .join('\n');
}

/** The text of a template or string literal, its interpolations rendered by `interpolate`. */
function literalText(node: ts.Expression, interpolate: (expression: ts.Expression) => string): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (!ts.isTemplateExpression(node)) return undefined;
  let text = node.head.text;
  for (const span of node.templateSpans) text += interpolate(span.expression) + span.literal.text;
  return text;
}

const spliced = (expression: ts.Expression): string => `/* \${${expression.getText()}} */`;

/** SQL text an argument of a pg or Unsafe call stands for: a literal, a const holding one, `new X(literal)`. */
function argumentText(node: ts.Expression | undefined): { text: string; at: ts.Node } | undefined {
  if (!node) return undefined;
  const direct = literalText(node, spliced);
  if (direct !== undefined) return { text: direct, at: node };
  if (ts.isNewExpression(node)) return argumentText(node.arguments?.[0]);
  if (ts.isIdentifier(node)) {
    const declaration = declarationOf(node.text, node);
    if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer)
      return argumentText(declaration.initializer);
  }
  return undefined;
}

function nameText(name: ts.PropertyName | ts.BindingName): string {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name) || ts.isNumericLiteral(name)
    ? name.text
    : name.getText();
}

/** The name a declaration gives the code inside it; local variables name nothing (their function does). */
function ownName(at: ts.Node): string | undefined {
  if (ts.isConstructorDeclaration(at)) return 'constructor';
  if (
    (ts.isMethodDeclaration(at) ||
      ts.isFunctionDeclaration(at) ||
      ts.isGetAccessorDeclaration(at) ||
      ts.isSetAccessorDeclaration(at) ||
      ts.isPropertyDeclaration(at) ||
      ts.isPropertyAssignment(at)) &&
    at.name !== undefined
  )
    return nameText(at.name);
  if (ts.isVariableDeclaration(at) && ts.isVariableStatement(at.parent.parent) && ts.isSourceFile(at.parent.parent.parent))
    return nameText(at.name);
  return undefined;
}

/** `Class.method`, `function`, or the module-level `const` that encloses `node`. */
function where(node: ts.Node): string {
  const names: string[] = [];
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    const name = ownName(at);
    if (name === undefined) continue;
    names.unshift(name);
    if (ts.isClassLike(at.parent)) {
      names.unshift(at.parent.name?.text ?? '(class)');
      break;
    }
    if (!ts.isObjectLiteralExpression(at.parent)) break;
  }
  return names.length > 0 ? names.join('.') : '(module)';
}

/** The raw SQL statements of one source text, in source order. */
export function extractStatements(fileName: string, source: string): Statement[] {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: Statement[] = [];
  const taken = new Set<ts.Node>();
  const add = (at: ts.Node, text: string): void => {
    if (taken.has(at)) return;
    taken.add(at);
    out.push({ pos: at.getStart(file), where: where(at), text: dedent(text) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node)) {
      const tag = node.tag;
      if (isPrismaMember(tag, 'sql') || TAGGED.has(memberName(tag) ?? '')) {
        let n = 0;
        const text = literalText(node.template, (expression) => (isFragment(expression) ? spliced(expression) : `$${++n}`));
        if (text !== undefined) add(node, text);
      }
    } else if (ts.isCallExpression(node)) {
      const name = memberName(node.expression);
      if (name !== undefined && (UNSAFE.has(name) || name === 'query')) {
        const found = argumentText(node.arguments[0]);
        if (found && (UNSAFE.has(name) || SQL_START.test(found.text))) add(found.at, found.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out.sort((a, b) => a.pos - b.pos);
}

/** The snapshot file of `source` (a repository path), or undefined when it sends no raw SQL. */
export function renderSnapshot(source: string, text: string): string | undefined {
  const statements = extractStatements(source, text);
  if (statements.length === 0) return undefined;
  const header = [
    `-- Generated by \`${COMMAND}\` (scripts/sql-snapshots.ts) from ${source}: do not edit.`,
    '-- Each statement as written there. $1, $2…: values bound as parameters;',
    '-- /* ${…} */: SQL spliced in from a fragment (Prisma.sql, Prisma.join, Prisma.raw) or text.',
  ].join('\n');
  return `${[header, ...statements.map((s) => `-- ${s.where}\n${s.text}`)].join('\n\n')}\n`;
}

/** Every snapshot the sources under `dirs` give: snapshot path → content, sorted by path. */
export function generateSnapshots(root: string, dirs: readonly string[] = SOURCE_DIRS): Map<string, string> {
  const out = new Map<string, string>();
  for (const source of sourceFiles(root, dirs, /\.tsx?$/)) {
    const rendered = renderSnapshot(source, readFileSync(join(root, source), 'utf8'));
    if (rendered !== undefined) out.set(snapshotPath(source), rendered);
  }
  return out;
}

/** The `.sql` files under the snapshot directory, as repository paths (sorted). */
export function existingSnapshots(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      return;
    }
    for (const name of names) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.sql')) out.push(path);
    }
  };
  walk(SNAPSHOT_DIR);
  return out.sort();
}

/** The snapshot files that differ from `expected`: stale or missing ones, and those whose source is gone or sends no SQL any more. */
export function driftedSnapshots(root: string, expected: ReadonlyMap<string, string>): string[] {
  const drifted = new Set<string>();
  for (const [path, content] of expected) {
    let current: string | undefined;
    try {
      current = readFileSync(join(root, path), 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== content) drifted.add(path);
  }
  for (const path of existingSnapshots(root)) if (!expected.has(path)) drifted.add(path);
  return [...drifted].sort();
}
