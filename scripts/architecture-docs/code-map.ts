/**
 * What docs/architecture.md's generated tables say, read from the code (TypeScript's parser,
 * no type checking): every `@Controller(path)` class under apps/ and libs/ with its folder,
 * and every `defineQueue<Jobs>(name)` call with its file and job names. Used by
 * `npm run docs:architecture` (scripts/architecture-docs.ts), scripts/architecture-docs.spec.ts
 * and the route-folder rule of test/architecture/architecture.spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../source-files';

export interface ControllerInfo {
  /** Repository path of the file declaring it. */
  readonly file: string;
  readonly className: string;
  /** The `@Controller` path as written (`api/v1/offers/:offer_id/indications`). */
  readonly path: string;
}

const parse = (file: string, text: string): ts.SourceFile => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** The `@Controller('path')` classes of one source text. */
export function controllersIn(file: string, text: string): ControllerInfo[] {
  const out: ControllerInfo[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      for (const decorator of ts.getDecorators(node) ?? []) {
        const call = decorator.expression;
        if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression) || call.expression.text !== 'Controller') continue;
        const [argument] = call.arguments;
        if (argument && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)))
          out.push({ file, className: node.name?.text ?? '(anonymous)', path: argument.text });
        else throw new Error(`${file}: @Controller without a literal path on ${node.name?.text ?? 'a class'}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file, text));
  return out;
}

export const controllers = (root: string, dirs: readonly string[] = ['apps', 'libs']): ControllerInfo[] =>
  sourceFiles(root, dirs).flatMap((file) => controllersIn(file, readFileSync(join(root, file), 'utf8')));

/** `apps/<service>/src/compat/<protocol>/`: an adapter for another product's protocol (exempt from the route-folder rule). */
export const COMPAT_FOLDER = /^apps\/[^/]+\/src\/compat\/[^/]+\//;

/** The resource a route path names: its last fixed segment (`admin/v1/offers/:id/allocations` → `allocations`). */
export function resource(path: string): string | undefined {
  return path
    .split('/')
    .filter((s) => s !== '' && !s.startsWith(':'))
    .pop();
}

/**
 * Controllers under apps/ that are not in their resource's folder (`apps/<app>/src/<resource>/`),
 * as `file: @Controller('path') is in folder/`; those in a compat folder are exempt.
 */
export function misplacedControllers(list: readonly ControllerInfo[]): string[] {
  return list
    .filter((c) => c.file.startsWith('apps/') && !COMPAT_FOLDER.test(c.file))
    .flatMap((c) => {
      const folder = c.file.split('/')[3];
      return resource(c.path) === folder ? [] : [`${c.file}: @Controller('${c.path}') is in ${folder}/`];
    });
}

export interface QueueInfo {
  /** The queue's name; a template's interpolation as `<expression>`. */
  readonly name: string;
  readonly file: string;
  readonly jobs: readonly string[];
}

/** A property name of a job map: an identifier, a literal, or `[Enum.Member]` of an enum of the same file. */
function jobName(name: ts.PropertyName, enums: ReadonlyMap<string, string>, file: string): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const value = enums.get(name.expression.getText());
    if (value !== undefined) return value;
  }
  throw new Error(`${file}: cannot read the job name ${name.getText()}`);
}

/** The `defineQueue<Jobs>(name)` calls of one source text, with the job names of `Jobs` (a type literal or a type alias of the file). */
export function queuesIn(file: string, text: string): QueueInfo[] {
  const source = parse(file, text);
  const enums = new Map<string, string>();
  const aliases = new Map<string, ts.TypeNode>();
  for (const statement of source.statements) {
    if (ts.isEnumDeclaration(statement))
      for (const member of statement.members)
        if (member.initializer && ts.isStringLiteral(member.initializer))
          enums.set(`${statement.name.text}.${member.name.getText(source)}`, member.initializer.text);
    if (ts.isTypeAliasDeclaration(statement)) aliases.set(statement.name.text, statement.type);
  }
  const jobsOf = (type: ts.TypeNode | undefined): string[] => {
    if (type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) return jobsOf(aliases.get(type.typeName.text));
    if (type && ts.isTypeLiteralNode(type))
      return type.members.flatMap((m) => (ts.isPropertySignature(m) ? [jobName(m.name, enums, file)] : []));
    throw new Error(`${file}: cannot read the jobs of a defineQueue call (a type literal or a type alias of the file)`);
  };
  const out: QueueInfo[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineQueue') {
      const [argument] = node.arguments;
      let name: string;
      if (argument && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument))) name = argument.text;
      else if (argument && ts.isTemplateExpression(argument))
        name =
          argument.head.text + argument.templateSpans.map((s) => `<${s.expression.getText(source)}>${s.literal.text}`).join('');
      else throw new Error(`${file}: defineQueue without a literal name`);
      out.push({ name, file, jobs: jobsOf(node.typeArguments?.[0]) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

export const queues = (root: string, dirs: readonly string[] = ['apps', 'libs']): QueueInfo[] =>
  sourceFiles(root, dirs).flatMap((file) => queuesIn(file, readFileSync(join(root, file), 'utf8')));

/** The folder of a repository path, with a trailing slash. */
export const folderOf = (file: string): string => `${posix.dirname(file)}/`;
