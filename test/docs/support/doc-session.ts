/**
 * Runs a document's examples as a reader would: its shell blocks in order in one shell
 * session (variables, exported ones, functions and the working directory carry from block to
 * block), its Node blocks with the variables the shell exported, in a working directory of
 * its own. Each block runs in its own process group, so what a block starts in the
 * background (a webhook receiver) is stopped with the session.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BlockResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Shell variables that exist before any block ran: these are not carried between blocks. */
function baselineVariables(): Set<string> {
  const out = spawnSync('bash', ['--noprofile', '--norc', '-c', 'compgen -v'], { env: {}, encoding: 'utf8' });
  return new Set(`${out.stdout}\nBASH_REMATCH\nPIPESTATUS\n_`.split('\n').filter(Boolean));
}

export class DocSession {
  private readonly stateFile: string;
  private readonly envFile: string;
  private readonly groups = new Set<number>();
  private counter = 0;
  private readonly skip: string;

  constructor(
    /** The working directory of the document (created; emptied first). */
    readonly dir: string,
    /** Environment every block starts from (PATH, HOME, …): nothing of the test runner's leaks in. */
    private readonly env: Record<string, string>,
    private readonly timeoutMs = 60_000,
  ) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, '.doc-test'), { recursive: true });
    this.stateFile = join(dir, '.doc-test', 'state.sh');
    this.envFile = join(dir, '.doc-test', 'env');
    this.skip = [...baselineVariables()].join(' ');
  }

  /** Runs one shell block in the session. */
  shell(code: string): Promise<BlockResult> {
    const n = ++this.counter;
    const script = join(this.dir, '.doc-test', `block-${n}.sh`);
    const state = JSON.stringify(this.stateFile);
    writeFileSync(
      script,
      [
        'set -euo pipefail',
        `cd ${JSON.stringify(this.dir)}`,
        `[ -f ${state} ] && source ${state}`,
        '# ---- the block ----',
        code,
        '# ---- carry the session over to the next block ----',
        `__doc_skip=" ${this.skip} __doc_skip __doc_v "`,
        `{ for __doc_v in $(compgen -v); do case "$__doc_skip" in *" $__doc_v "*) ;; *) declare -p "$__doc_v" 2>/dev/null || true;; esac; done; declare -f; printf 'cd %q\\n' "$PWD"; } > ${state}.next`,
        `mv ${state}.next ${state}`,
        `env -0 > ${JSON.stringify(this.envFile)}`,
        '',
      ].join('\n'),
    );
    return this.run('bash', ['--noprofile', '--norc', script], this.env);
  }

  /** Runs one Node block (ESM) with the environment the shell has exported so far. */
  node(code: string): Promise<BlockResult> {
    const n = ++this.counter;
    const file = join(this.dir, `.doc-test-block-${n}.mjs`);
    writeFileSync(file, code);
    return this.run(process.execPath, [file], this.exported());
  }

  /** Saves a block as a file of the document's working directory (`js file=receiver.js`). */
  saveFile(name: string, code: string): void {
    writeFileSync(join(this.dir, name), code.endsWith('\n') ? code : `${code}\n`);
  }

  /** The variables the shell session has exported (the environment Node blocks run with). */
  exported(): Record<string, string> {
    if (!existsSync(this.envFile)) return { ...this.env };
    const env: Record<string, string> = {};
    for (const entry of readFileSync(this.envFile, 'utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return env;
  }

  private run(command: string, args: string[], env: Record<string, string>): Promise<BlockResult> {
    const n = this.counter;
    const outPath = join(this.dir, '.doc-test', `block-${n}.out`);
    const errPath = join(this.dir, '.doc-test', `block-${n}.err`);
    const out = openSync(outPath, 'w');
    const err = openSync(errPath, 'w');
    // Files, not pipes: a background process a block starts keeps its descriptors, and the
    // block is over when its own process exits.
    const child = spawn(command, args, { cwd: this.dir, env, stdio: ['ignore', out, err], detached: true });
    closeSync(out);
    closeSync(err);
    if (child.pid !== undefined) this.groups.add(child.pid);
    return new Promise((resolve) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        this.killGroup(child.pid, 'SIGKILL');
      }, this.timeoutMs);
      child.once('exit', (status, signal) => {
        clearTimeout(timer);
        resolve({
          status,
          signal,
          stdout: readFileSync(outPath, 'utf8'),
          stderr: readFileSync(errPath, 'utf8'),
          timedOut,
        });
      });
    });
  }

  private killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }

  /** Stops everything the blocks left running in the background. */
  close(): void {
    for (const pid of this.groups) this.killGroup(pid, 'SIGTERM');
    this.groups.clear();
  }
}
