import { startWorkerFile } from '@app/platform';
import type { Worker } from 'node:worker_threads';
import { parseInsertBody } from './parse-insert';
import type { ParseOptions, ParseOutcome, ParseReply, ParseRequest } from './parse-protocol';

interface Pending {
  resolve(outcome: ParseOutcome): void;
  reject(err: Error): void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * A small pool of insert parse workers (parse.worker.ts), started on first use. A body's
 * bytes are moved to the least busy worker (transferred: the caller's buffer is empty
 * afterwards); each worker parses its bodies one after the other. A worker that dies fails
 * its pending parses (each answers 500) and is replaced on the next parse. Workers keep the
 * process alive only while they have work.
 */
export class ParsePool {
  private readonly slots: Array<Slot | undefined>;
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    this.slots = new Array<Slot | undefined>(size).fill(undefined);
  }

  /**
   * Parses `body` in a worker; its ArrayBuffer is transferred when the view covers all of it,
   * copied otherwise. Once the pool is closing (the app shuts down while requests drain) the
   * body is parsed here instead, by the same function.
   */
  parse(body: Uint8Array, options: ParseOptions): Promise<ParseOutcome> {
    if (this.closed) return Promise.resolve(parseInsertBody(body, options));
    const slot = this.leastBusy();
    const id = this.nextId++;
    // A pooled Buffer (Node's allocation pool) shares its ArrayBuffer with others: copy those.
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
    const bytes = own ? body : body.slice();
    const request: ParseRequest = { id, body: bytes, options };
    return new Promise<ParseOutcome>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage(request, [bytes.buffer as ArrayBuffer]);
    });
  }

  /** Parses waiting or running now (metrics, tests). */
  get inFlight(): number {
    return this.slots.reduce((sum, s) => sum + (s?.pending.size ?? 0), 0);
  }

  /** Lets the parses under way finish (up to `graceMs`), then stops the workers. */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    const until = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const running = this.slots.filter((s): s is Slot => s !== undefined);
    this.slots.fill(undefined);
    for (const slot of running) this.fail(slot, new Error('the insert parse pool closed'));
    await Promise.all(running.map((s) => s.worker.terminate()));
  }

  private leastBusy(): Slot {
    let best = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (slot === undefined) {
        best = i;
        break;
      }
      const current = best < 0 ? undefined : this.slots[best];
      if (current === undefined || slot.pending.size < current.pending.size) best = i;
    }
    return this.slots[best] ?? this.start(best);
  }

  private start(index: number): Slot {
    const worker = startWorkerFile(new URL('./parse.worker.js', import.meta.url));
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: ParseReply) => {
      const waiter = slot.pending.get(reply.id);
      if (!waiter) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      if ('failed' in reply) waiter.reject(new Error(`insert parse worker: ${reply.failed}`));
      else waiter.resolve(reply.outcome);
    });
    const gone = (err: Error): void => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
      this.fail(slot, err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`insert parse worker exited with code ${code}`)));
    this.slots[index] = slot;
    return slot;
  }

  private fail(slot: Slot, err: Error): void {
    for (const waiter of slot.pending.values()) waiter.reject(err);
    slot.pending.clear();
  }
}
