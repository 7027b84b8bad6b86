/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package.
 *
 *   node bench/ts-run.mjs bench/webhooks/profile-top.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, topArg] = process.argv.slice(3);
if (file === undefined) throw new Error('usage: profile-top.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)?.callFrame;
  if (frame === undefined) continue;
  total += us;
  const where = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(libs|apps|bench)\//, '$1/');
  const fn = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const pkg =
    frame.url === ''
      ? frame.functionName
      : frame.url.includes('node_modules/')
        ? (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url)?.[1] ?? '?')
        : frame.url.startsWith('node:')
          ? 'node:' + frame.url.slice(5).split('/')[0]
          : frame.url.includes('/libs/')
            ? 'libs'
            : 'other';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>): void => {
  process.stdout.write(`\n${title} (total ${(total / 1e6).toFixed(1)} s sampled)\n`);
  for (const [k, us] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}\n`);
  }
};
show('self time by package', byPackage);
show('self time by function', byFunction);
