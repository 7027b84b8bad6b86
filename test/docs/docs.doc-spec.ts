/**
 * Docs that run (issue 15): every shell and Node example of README.md and docs/*.md runs, in
 * order, against a freshly started platform (one per document, as a new user following that
 * guide on a new `npm start`), and what it prints is compared with the `output` block the doc
 * shows under it (ids, secrets and times masked: test/docs/support/expected-output.ts). A
 * block that fails, prints something the doc does not show, or prints other than the doc
 * shows fails the test. Conventions: docs/architecture.md, "Docs that run".
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlockResult, DocSession } from './support/doc-session';
import { type DocPlatform, startDocPlatform } from './support/doc-platform';
import { outputDifference } from './support/expected-output';
import { documentsUnder, type Step, stepsOf } from './support/markdown';

const root = process.cwd();
const documents = documentsUnder(root);
// DOC_TEST_ONLY=docs/offers.md runs one document (while writing it).
const only = process.env.DOC_TEST_ONLY;
const withSteps = documents
  .filter((doc) => !only || doc === only)
  .map((doc) => ({ doc, steps: stepsOf(readFileSync(join(root, doc), 'utf8'), doc) }))
  .filter((d) => d.steps.length > 0);

function describeFailure(step: Step, doc: string, result: BlockResult, why: string, platform: DocPlatform): string {
  return [
    `${doc}:${step.block.line}: ${why}`,
    `--- block\n${step.block.code}`,
    `--- exit ${result.status ?? result.signal}${result.timedOut ? ' (timed out)' : ''}`,
    `--- stdout\n${result.stdout.slice(0, 4000)}`,
    `--- stderr\n${result.stderr.slice(0, 4000)}`,
    ...(result.status === 0 ? [] : [`--- service logs (last lines)\n${platform.logs().split('\n').slice(-30).join('\n')}`]),
  ].join('\n');
}

it('finds the docs and their examples', () => {
  expect(documents).toContain('README.md');
  expect(withSteps.length).toBeGreaterThan(0);
});

describe.each(withSteps)('$doc', ({ doc, steps }) => {
  let platform: DocPlatform;
  let session: DocSession;
  let broken: string | undefined;
  const readers: string[] = [];

  beforeAll(async () => {
    const work = join(root, '.data', 'doc-tests', doc.replace(/[/.]/g, '_'));
    platform = await startDocPlatform(join(work, 'service-data'));
    // The reader works outside the repository, with a plain PATH (npm test adds
    // node_modules/.bin), so an example can use only what the doc installs; PLATFORM_DIR is
    // the reader's checkout of the platform, as the guides say.
    const reader = mkdtempSync(join(tmpdir(), `doc-reader-${doc.replace(/[/.]/g, '_')}-`));
    readers.push(reader);
    session = new DocSession(reader, {
      PATH: (process.env.PATH ?? '/usr/bin:/bin')
        .split(':')
        .filter((dir) => !dir.includes('node_modules'))
        .join(':'),
      HOME: reader,
      LANG: 'C.UTF-8',
      PLATFORM_DIR: root,
    });
  }, 60_000);

  afterAll(async () => {
    session?.close();
    await platform?.stop();
    for (const dir of readers.splice(0)) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it.each(steps.map((step, i) => ({ step, name: `${i + 1}. line ${step.block.line} (${step.kind})` })))(
    '$name',
    async ({ step }) => {
      if (broken) throw new Error(`not run: an earlier example failed (${broken})`);
      const code = platform.localize(step.block.code);
      if (step.kind === 'file') {
        session.saveFile(step.name, code);
        return;
      }
      const result = step.kind === 'shell' ? await session.shell(code) : await session.node(code);
      let why: string | undefined;
      if (result.status !== 0) why = 'the example failed';
      else if (step.expected) {
        const shown = platform.localize(step.expected.code);
        why = outputDifference(step.expected.lang, shown, result.stdout);
        if (why) why = `the output differs from the doc's (line ${step.expected.line}): ${why}`;
      } else if (result.stdout.trim() !== '') why = 'the example prints output the doc does not show (add an `output` block)';
      if (why) {
        broken = `${doc}:${step.block.line}`;
        throw new Error(describeFailure(step, doc, result, why, platform));
      }
    },
    120_000,
  );
});
