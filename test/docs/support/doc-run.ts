/**
 * One document's examples as the runners of docs need them (the docs project,
 * test/docs/docs.doc-spec.ts, and the contract run against a Sentinel-backed stack,
 * test/faults/contract-failover.fault-spec.ts): the reader's session and the verdict on one
 * step, one set of rules for both.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlockResult, DocSession } from './doc-session';
import type { DocPlatform } from './doc-platform';
import { outputDifference } from './expected-output';
import type { Step } from './markdown';

/**
 * The reader of `doc`: outside the repository, with a plain PATH (npm test adds
 * node_modules/.bin), so an example can use only what the doc installs; PLATFORM_DIR is the
 * reader's checkout of the platform, as the guides say. `dir` is removed by the caller.
 */
export function readerSession(root: string, doc: string): { session: DocSession; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), `doc-reader-${doc.replace(/[/.]/g, '_')}-`));
  const session = new DocSession(dir, {
    PATH: (process.env.PATH ?? '/usr/bin:/bin')
      .split(':')
      .filter((entry) => !entry.includes('node_modules'))
      .join(':'),
    HOME: dir,
    LANG: 'C.UTF-8',
    PLATFORM_DIR: root,
  });
  return { session, dir };
}

export interface StepOutcome {
  /** Undefined for a `file` step (saved, not run). */
  readonly result?: BlockResult;
  /** Why the step does not pass as the doc says; undefined when it does. */
  readonly why?: string;
}

/** Runs `step` in `session` against `platform` and judges it as the docs project does. */
export async function runStep(session: DocSession, platform: DocPlatform, step: Step): Promise<StepOutcome> {
  const code = platform.localize(step.block.code);
  if (step.kind === 'file') {
    session.saveFile(step.name, code);
    return {};
  }
  const result = step.kind === 'shell' ? await session.shell(code) : await session.node(code);
  if (result.status !== 0) return { result, why: 'the example failed' };
  if (step.expected) {
    const why = outputDifference(step.expected.lang, platform.localize(step.expected.code), result.stdout);
    return why ? { result, why: `the output differs from the doc's (line ${step.expected.line}): ${why}` } : { result };
  }
  if (result.stdout.trim() !== '')
    return { result, why: 'the example prints output the doc does not show (add an `output` block)' };
  return { result };
}

/** A failure message with the block, its output and (when it did not exit 0) the services' last log lines. */
export function describeFailure(step: Step, doc: string, result: BlockResult, why: string, platform: DocPlatform): string {
  return [
    `${doc}:${step.block.line}: ${why}`,
    `--- block\n${step.block.code}`,
    `--- exit ${result.status ?? result.signal}${result.timedOut ? ' (timed out)' : ''}`,
    `--- stdout\n${result.stdout.slice(0, 4000)}`,
    `--- stderr\n${result.stderr.slice(0, 4000)}`,
    ...(result.status === 0 ? [] : [`--- service logs (last lines)\n${platform.logs().split('\n').slice(-30).join('\n')}`]),
  ].join('\n');
}
