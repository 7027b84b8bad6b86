/**
 * Finds, by reading the sources (TypeScript's parser, no type checking), every error code the
 * code under apps/ and libs/ can raise, for scripts/error-docs.spec.ts to hold against the
 * catalogues. A code is raised by:
 *
 * - `new X(code, ...)` where X is DomainError or a class extending it (OffersError,
 *   NotFoundError...); a subclass whose constructor calls `super('literal', ...)` raises that
 *   literal (NotFoundError: `resource_missing`);
 * - a call to a function with a parameter typed as a code (`code: PlatformErrorCode`,
 *   `error: OAuthTooManyRequestsCode`): the argument in that place;
 * - `new RawHttpError(status, { error })`: an RFC 6749 error of the token endpoint (kind `oauth`);
 *   a literal body without `error` (Qdrant's `{status: {error}}`) raises no code; an `error`
 *   that is itself an object literal (Stripe's `{error: {type, code, message}}`) raises its
 *   literal `code`, if it has one.
 *
 * The code argument is resolved to string literals: a literal, a cast or parenthesised one,
 * both branches of a conditional, or a name declared in an enclosing scope (a `const`, read
 * like the argument, or a parameter whose type is a union of literals). A name typed as a
 * code (`PlatformErrorCode`, any `...Code` type, the generic `Code`) is trusted: the type
 * system holds it to its catalogue. Anything else is reported as unresolved, so a new way of
 * raising a code cannot slip past unread.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../source-files';

export { sourceFiles };

export type RaisedKind = 'domain' | 'oauth';

export interface RaisedCode {
  /** `path:line`, relative to the repository root. */
  readonly at: string;
  readonly file: string;
  readonly code: string;
  readonly kind: RaisedKind;
}

export interface RaisedCodes {
  readonly raised: readonly RaisedCode[];
  /** Code arguments that could be neither resolved to literals nor trusted by their type: `path:line: text`. */
  readonly unresolved: readonly string[];
}

/** A type naming error codes: `PlatformErrorCode`, `Exclude<OAuthErrorCode, ...>`, `OAuthTooManyRequestsCode`, the generic `Code`. */
const CODE_TYPE = /\b[A-Z][A-Za-z]*Code\b|^(NoInfer<)?Code>?$/;

function heritageName(node: ts.ClassDeclaration): string | undefined {
  const clause = node.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword);
  const expression = clause?.types[0]?.expression;
  return expression && ts.isIdentifier(expression) ? expression.text : undefined;
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

type Resolution = { readonly codes: readonly string[] } | 'typed' | 'unresolved';

/** The declaration of `name` visible at `from`: a parameter of an enclosing function or a variable of an enclosing block. */
function declarationOf(name: string, from: ts.Node): ts.ParameterDeclaration | ts.VariableDeclaration | undefined {
  for (let scope: ts.Node | undefined = from.parent; scope; scope = scope.parent) {
    if (ts.isFunctionLike(scope)) {
      const parameter = scope.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (parameter) return parameter;
    }
    if (ts.isBlock(scope) || ts.isSourceFile(scope)) {
      for (const statement of scope.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        const found = statement.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === name);
        if (found) return found;
      }
    }
  }
  return undefined;
}

function resolve(expression: ts.Expression, source: ts.SourceFile): Resolution {
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return { codes: [expression.text] };
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)) {
    return resolve(expression.expression, source);
  }
  if (ts.isConditionalExpression(expression)) {
    const a = resolve(expression.whenTrue, source);
    const b = resolve(expression.whenFalse, source);
    if (a === 'unresolved' || b === 'unresolved') return 'unresolved';
    return { codes: [...(a === 'typed' ? [] : a.codes), ...(b === 'typed' ? [] : b.codes)] };
  }
  if (!ts.isIdentifier(expression)) return 'unresolved';
  const declaration = declarationOf(expression.text, expression);
  if (!declaration) return 'unresolved';
  const type = declaration.type;
  // a const's value, read like the argument itself (a typed const still shows its literal: checked too)
  const value =
    ts.isVariableDeclaration(declaration) && declaration.initializer ? resolve(declaration.initializer, source) : undefined;
  if (type && CODE_TYPE.test(type.getText(source))) return value !== undefined && value !== 'unresolved' ? value : 'typed';
  if (type && ts.isUnionTypeNode(type) && type.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))) {
    return { codes: type.types.map((t) => ((t as ts.LiteralTypeNode).literal as ts.StringLiteral).text) };
  }
  if (type && ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return { codes: [type.literal.text] };
  return value ?? 'unresolved';
}

/** Every code raised under `dirs` of `root`, and the code arguments the scan could not resolve. */
export function raisedCodes(root: string, dirs: readonly string[]): RaisedCodes {
  const files = sourceFiles(root, dirs).map((file) => ({
    file,
    source: ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true),
  }));

  // DomainError and its subclasses, across files; a subclass whose constructor passes a literal code raises that one
  const family = new Map<string, string | undefined>([['DomainError', undefined]]);
  const classes: ts.ClassDeclaration[] = [];
  const helpers = new Map<string, { index: number; kind: RaisedKind }>();
  for (const { source } of files) {
    walk(source, (node) => {
      if (ts.isClassDeclaration(node) && node.name) classes.push(node);
      if (ts.isFunctionDeclaration(node) && node.name) {
        node.parameters.forEach((p, index) => {
          const type = p.type?.getText(source) ?? '';
          if (CODE_TYPE.test(type)) helpers.set(node.name?.text ?? '', { index, kind: /OAuth/.test(type) ? 'oauth' : 'domain' });
        });
      }
    });
  }
  for (let grown = true; grown;) {
    grown = false;
    for (const node of classes) {
      const name = node.name?.text ?? '';
      const parent = heritageName(node);
      if (family.has(name) || parent === undefined || !family.has(parent)) continue;
      const ctor = node.members.find(ts.isConstructorDeclaration);
      let fixed = family.get(parent);
      walk(ctor ?? node, (n) => {
        if (ctor && ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword) {
          const first = n.arguments[0];
          if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) fixed = first.text;
        }
      });
      family.set(name, fixed);
      grown = true;
    }
  }

  const raised: RaisedCode[] = [];
  const unresolved: string[] = [];
  for (const { file, source } of files) {
    const record = (node: ts.Node, argument: ts.Expression | undefined, kind: RaisedKind): void => {
      const at = `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
      const resolution = argument === undefined ? 'unresolved' : resolve(argument, source);
      if (resolution === 'unresolved') unresolved.push(`${at}: ${node.getText(source).split('\n')[0]}`);
      else if (resolution !== 'typed') for (const code of resolution.codes) raised.push({ at, file, code, kind });
    };
    walk(source, (node) => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
        const name = node.expression.text;
        if (family.has(name)) {
          const fixed = family.get(name);
          if (fixed !== undefined) {
            const at = `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
            raised.push({ at, file, code: fixed, kind: 'domain' });
          } else record(node, node.arguments?.[0], 'domain');
        } else if (name === 'RawHttpError') {
          const body = node.arguments?.[1];
          const error =
            body && ts.isObjectLiteralExpression(body)
              ? body.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'error')
              : undefined;
          if (error && ts.isShorthandPropertyAssignment(error)) record(node, error.name, 'oauth');
          else if (error && ts.isPropertyAssignment(error) && ts.isObjectLiteralExpression(error.initializer)) {
            // Stripe's `{error: {type, code?, message}}` (payments-api compat/stripe): a literal
            // `code` is a catalogue code; fields spread in from the caller raise none here
            const code = error.initializer.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'code');
            if (code && ts.isPropertyAssignment(code)) record(node, code.initializer, 'domain');
          } else if (error && ts.isPropertyAssignment(error)) record(node, error.initializer, 'oauth');
          // a body of literal fields none of which is `error` raises no code: Qdrant's
          // `{status: {error: message}, time}` (vector-api compat/qdrant) carries a message only
          else if (!(body && ts.isObjectLiteralExpression(body))) record(node, undefined, 'oauth');
        }
      }
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        if (callee.kind === ts.SyntaxKind.SuperKeyword) return; // handled with the class
        const name = ts.isIdentifier(callee) ? callee.text : undefined;
        const helper = name === undefined ? undefined : helpers.get(name);
        if (helper) record(node, node.arguments[helper.index], helper.kind);
      }
    });
  }
  return { raised, unresolved };
}
