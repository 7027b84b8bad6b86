/**
 * Docs that run (issue 15): every shell and Node example of README.md and docs/*.md runs, in
 * order, against a freshly started platform (one per document, as a new user following that
 * guide on a new `npm start`), and what it prints is compared with the `output` block the doc
 * shows under it (ids, secrets and times masked: test/docs/support/expected-output.ts). A
 * block that fails, prints something the doc does not show, or prints other than the doc
 * shows fails the test. Conventions: docs/architecture.md, "Docs that run".
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DocSession } from './support/doc-session';
import { type DocPlatform, startDocPlatform } from './support/doc-platform';
import { describeFailure, readerSession, runStep } from './support/doc-run';
import { documentsUnder, stepsOf } from './support/markdown';

const root = process.cwd();
const documents = documentsUnder(root);
// DOC_TEST_ONLY=docs/offers.md runs one document (while writing it).
const only = process.env.DOC_TEST_ONLY;
const withSteps = documents
  .filter((doc) => !only || doc === only)
  .map((doc) => ({ doc, steps: stepsOf(readFileSync(join(root, doc), 'utf8'), doc) }))
  .filter((d) => d.steps.length > 0);

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
    const reader = readerSession(root, doc);
    readers.push(reader.dir);
    session = reader.session;
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
      const { result, why } = await runStep(session, platform, step);
      if (result && why) {
        broken = `${doc}:${step.block.line}`;
        throw new Error(describeFailure(step, doc, result, why, platform));
      }
    },
    120_000,
  );
});
