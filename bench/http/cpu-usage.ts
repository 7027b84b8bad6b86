/**
 * CPU time from /proc (Linux): of given processes (user + system) and of the whole machine.
 * On a shared machine, CPU milliseconds per request of the service process move far less
 * between runs than requests/s do, so the benchmark reports both. Elsewhere: NaN.
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;
function hz(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** user + system CPU milliseconds of the processes (those gone count 0). */
export function processCpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After "pid (comm) ": state is field 3, utime 14, stime 15 → indexes 11 and 12 here.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return (ticks / hz()) * 1000;
}

/** Busy and total CPU milliseconds of the machine (all cores) since boot. */
export function machineCpuMs(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: ((total - idle) / hz()) * 1000, total: (total / hz()) * 1000 };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** PIDs of processes whose command line contains `needle`, among `pids`. */
export function pidsMatching(pids: readonly number[], needle: string): number[] {
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}

/**
 * Waits until the whole machine is below `busyFraction` busy over a 1 s window (at most
 * `maxMs`), so that one scenario's after-work (outbox dispatch, autovacuum, GC) does not
 * run during the next measurement. Returns how long it waited and the last busy fraction.
 */
export async function waitForQuiet(busyFraction: number, maxMs: number): Promise<{ waitedMs: number; busy: number }> {
  const started = Date.now();
  let busy = 1;
  while (Date.now() - started < maxMs) {
    const a = machineCpuMs();
    await new Promise((r) => setTimeout(r, 1_000));
    const b = machineCpuMs();
    busy = (b.busy - a.busy) / Math.max(1, b.total - a.total);
    if (busy < busyFraction) break;
  }
  return { waitedMs: Date.now() - started, busy };
}
