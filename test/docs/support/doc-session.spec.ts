import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../support/wait';
import { DocSession } from './doc-session';
import { outputDifference } from './expected-output';
import { stepsOf } from './markdown';

/** Running (not gone, not a zombie waiting for a parent that never reaps it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The doc-test runner itself, on a document with no platform behind it: it must be able to fail. */
describe('DocSession', () => {
  let base: string;
  let session: DocSession;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'doc-session-'));
    session = new DocSession(join(base, 'reader'), { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base }, 10_000);
  });
  afterEach(() => {
    session.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('carries variables, exports, functions and the directory from block to block, and exports to Node', async () => {
    expect((await session.shell('A=1; export B="two words"; greet() { echo "hi $1"; }; mkdir -p sub; cd sub')).status).toBe(0);
    const next = await session.shell('echo "$A $B"; greet x; basename "$PWD"');
    expect(next.stdout).toBe('1 two words\nhi x\nsub\n');
    const node = await session.node('console.log(JSON.stringify([process.env.A ?? null, process.env.B]))');
    expect(node.stdout).toBe('[null,"two words"]\n');
  });

  it('fails a block at its first failing command, an unset variable, or a failing pipeline', async () => {
    expect((await session.shell('false; echo never')).stdout).toBe('');
    expect((await session.shell('echo "$NOT_SET"')).status).not.toBe(0);
    expect((await session.shell('X=$(echo \'{"error":{}}\' | jq -er .id)')).status).not.toBe(0);
  });

  it('stops what a block started in the background when the session closes', async () => {
    const started = await session.shell('sleep 30 & echo $! > pid');
    expect(started.status).toBe(0);
    const pid = Number((await session.shell('cat pid')).stdout);
    expect(alive(pid)).toBe(true);
    session.close();
    await waitFor(`process ${pid} to end`, () => !alive(pid), 5_000);
  });

  it('catches a deliberately broken example: the printed output differs from the shown one', async () => {
    const [step] = stepsOf(
      '```bash\necho \'{"amount": 2000, "currency": "gbp"}\'\n```\n```json output\n{"amount": 2500, "currency": "gbp"}\n```',
      'x.md',
    );
    if (!step || step.kind === 'file' || !step.expected) throw new Error('expected a shell step with output');
    const result = await session.shell(step.block.code);
    expect(outputDifference(step.expected.lang, step.expected.code, result.stdout)).toMatch(
      /\$\.amount: shown 2500, printed 2000/,
    );
  });
});
