/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and aggregates its samples: self time by
 * function and by file / npm package, and inclusive (total) time by function. Usable alone:
 *   node bench/ts-run.mjs bench/http/cpu-profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Entry {
  readonly name: string;
  readonly ms: number;
  /** Share of the busy (non-idle) time. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly wallMs: number;
  readonly busyMs: number;
  readonly idleMs: number;
  readonly selfByFunction: Entry[];
  readonly selfByFile: Entry[];
  readonly totalByFunction: Entry[];
}

/** `/x/node_modules/@prisma/client/runtime/y.js` → `@prisma/client`; `node:internal/...` kept; app files relative. */
export function fileGroup(url: string, root: string): string {
  if (url === '') return '(native / V8)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? path);
  }
  if (path.startsWith('node:')) return path.replace(/^node:internal\//, 'node:');
  return path.startsWith(root) ? path.slice(root.length + 1) : path;
}

function shortFile(url: string, root: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  return path.startsWith(root) ? path.slice(root.length + 1) : path;
}

/**
 * `window` (microseconds of the monotonic clock, as `process.hrtime.bigint() / 1000n` gives
 * in any process of the machine, and as V8 stamps samples) keeps only the samples inside it,
 * e.g. the measured load and not the start-up or the seeding.
 */
export function summarize(file: string, root: string, top = 25, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const c of node.children ?? []) parent.set(c, node.id);
  }
  const label = (n: ProfileNode): string => {
    const f = n.callFrame;
    if (f.url === '') return f.functionName || '(anonymous)';
    return `${f.functionName || '(anonymous)'} ${shortFile(f.url, root)}:${f.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  const total = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  let at = profile.startTime;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  const add = (m: Map<string, number>, k: string, v: number): void => {
    m.set(k, (m.get(k) ?? 0) + v);
  };
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's weight is the time until the next sample.
    const us = profile.timeDeltas[i + 1] ?? 0;
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    first = Math.min(first, at);
    last = Math.max(last, at);
    const node = byId.get(profile.samples[i] ?? -1);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    add(self, label(node), us);
    const special = node.callFrame.url === '' && node.callFrame.functionName.startsWith('(');
    add(byFile, special ? node.callFrame.functionName : fileGroup(node.callFrame.url, root), us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n || n.callFrame.functionName === '(root)') break;
      const key = label(n);
      if (!seen.has(key)) {
        seen.add(key);
        add(total, key, us);
      }
    }
  }
  const entries = (m: Map<string, number>): Entry[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return {
    file,
    wallMs: last > first ? (last - first) / 1000 : 0,
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    selfByFunction: entries(self),
    selfByFile: entries(byFile),
    totalByFunction: entries(total),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1).padStart(5)} %`;
  const block = (title: string, rows: Entry[]): string[] => [
    title,
    ...rows.map((e) => `  ${pct(e.share)}  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`),
  ];
  return [
    `${s.file}: wall ${(s.wallMs / 1000).toFixed(1)} s, busy ${(s.busyMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s`,
    ...block('self time by file / package (share of busy time):', s.selfByFile),
    ...block('self time by function:', s.selfByFunction),
    ...block('total (inclusive) time by function:', s.totalByFunction),
  ].join('\n');
}

if (process.argv[2] !== undefined && resolve(process.argv[2]) === __filename) {
  const [file, top] = process.argv.slice(3);
  // Whole profile; run.ts passes the load window.
  if (!file) throw new Error('usage: node bench/ts-run.mjs bench/http/cpu-profile.ts <file.cpuprofile> [top]');
  process.stdout.write(`${formatSummary(summarize(file, process.cwd(), Number(top ?? 25)))}\n`);
}
