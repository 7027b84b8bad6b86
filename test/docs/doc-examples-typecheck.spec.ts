/**
 * The docs' Node examples type-check against the typed clients (issue 15): each `js` block of
 * README.md and docs/*.md is written out as an ES module and checked by TypeScript (checkJs,
 * what a reader's editor does with it), so an example that calls a path the OpenAPI documents
 * do not have, leaves out a required field or reads a field a response does not have fails
 * here, before the doc tests run it. (In JavaScript an object literal is open, so an extra,
 * misspelt optional field is not an error; in TypeScript, as test/clients shows, it is.) Not
 * strict: examples read `process.env` without guards, as a reader's script would.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { NODE_LANGS, codeBlocks, documentsUnder } from './support/markdown';

const root = process.cwd();

function nodeExamples(): Array<{ where: string; code: string }> {
  return documentsUnder(root).flatMap((doc) =>
    codeBlocks(readFileSync(join(root, doc), 'utf8'))
      .filter((b) => NODE_LANGS.has(b.lang) && !b.flags.has('norun'))
      .map((b) => ({ where: `${doc}:${b.line}`, code: b.code })),
  );
}

/** TypeScript's diagnostics for `files` (name → source), as `where: message` lines. */
export function typeErrors(files: ReadonlyArray<{ where: string; code: string }>): string[] {
  const dir = join(root, '.data', 'doc-typecheck');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const names = new Map<string, string>();
  files.forEach((f, i) => {
    const file = join(dir, `example-${i}.mjs`);
    writeFileSync(file, f.code);
    names.set(file, f.where);
  });
  const program = ts.createProgram([...names.keys()], {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    strict: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? (names.get(d.file.fileName) ?? d.file.fileName) : '';
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${where} (+${line}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe("the docs' Node examples", () => {
  it('type-check against the typed clients and Node', () => {
    const examples = nodeExamples();
    expect(examples.length).toBeGreaterThan(3);
    expect(typeErrors(examples)).toEqual([]);
  }, 60_000);

  it('catch a wrong path, a misspelt required field and a response field that does not exist (the check can fail)', () => {
    const broken = `import { createPaymentsClient } from '@securities-platform/payments-client';
const payments = createPaymentsClient({ baseUrl: 'http://localhost:3002', apiKey: 'sk_test_x' });
await payments.GET('/v2/payment', {});
await payments.POST('/v2/payments', { body: { amount: 2000, currency: 'gbp', customer: 'cus_x' } });
const { data } = await payments.GET('/v2/customers/{id}', { params: { path: { id: 'cus_x' } } });
console.log(data?.mail);`;
    const errors = typeErrors([{ where: 'broken.md:1', code: broken }]).join('\n');
    expect(errors).toMatch(/broken\.md:1 \(\+3\): .*'"\/v2\/payment"' is not assignable/);
    expect(errors).toMatch(/broken\.md:1 \(\+4\): .*customer_id/);
    expect(errors).toMatch(/broken\.md:1 \(\+6\): Property 'mail' does not exist/);
  }, 60_000);
});
