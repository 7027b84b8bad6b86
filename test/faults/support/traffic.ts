/**
 * Steady background traffic: a few loops, each sending one kind of request after another
 * until stopped, every request recorded with its outcome.
 */
import { type Outcome, label } from './http';
import { sleep } from './processes';

export interface Sent {
  readonly op: string;
  /** The operation's own id for this request (Idempotency-Key, row id, ...). */
  readonly key: string;
  readonly startedAt: number;
  readonly outcome: Outcome;
}

export type Operation = (seq: number) => { key: string; send: () => Promise<Outcome> };

export class Traffic {
  readonly sent: Sent[] = [];
  private stopped = false;
  private readonly loops: Array<Promise<void>> = [];

  /** Starts a loop sending `op(seq)` one after another, `pauseMs` apart. */
  run(name: string, op: Operation, pauseMs = 20): void {
    this.loops.push(
      (async () => {
        for (let seq = 0; !this.stopped; seq++) {
          const { key, send } = op(seq);
          const startedAt = Date.now();
          this.sent.push({ op: name, key, startedAt, outcome: await send() });
          await sleep(pauseMs); // pacing of the load, not a wait for anything
        }
      })(),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /** Outcome counts per operation, e.g. `{ "payments.create": { "201": 80, "503 service_unavailable": 2 } }`. */
  summary(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const s of this.sent) {
      const byLabel = (out[s.op] ??= {});
      byLabel[label(s.outcome)] = (byLabel[label(s.outcome)] ?? 0) + 1;
    }
    return out;
  }
}
