/** Why the gate refused a verification. */
export type GateRefusal = 'address_busy' | 'queue_full' | 'timeout';

export class GateRefused extends Error {
  constructor(readonly reason: GateRefusal) {
    super(`verification refused: ${reason}`);
    this.name = 'GateRefused';
  }
}

export interface VerificationGateOptions {
  /** Verifications running at once. */
  readonly concurrency: number;
  /** Callers waiting for a slot; beyond it → `queue_full`. */
  readonly queue: number;
  /** Longest wait for a slot → `timeout`. */
  readonly timeoutMs: number;
  /** Running plus waiting callers of one address; beyond it → `address_busy`. */
  readonly perAddress: number;
}

interface Waiter {
  readonly address: string;
  readonly grant: (release: () => void) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * A counting semaphore for expensive secret verifications (scrypt), fair between client
 * addresses: at most `concurrency` run at once, one address runs at most half of them
 * (at least one) and holds at most `perAddress` places (running or waiting), at most `queue`
 * callers wait, none longer than `timeoutMs`. A refusal is immediate (GateRefused), so a
 * flood costs the process a bounded amount of CPU and memory, and a caller from another
 * address finds a free slot or a short queue.
 */
export class VerificationGate {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  private readonly heldBy = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private readonly sharePerAddress: number;

  constructor(private readonly options: VerificationGateOptions) {
    this.sharePerAddress = Math.max(1, Math.floor(options.concurrency / 2));
  }

  /** Runs `work` in a slot; throws GateRefused without running it when none can be had. */
  async run<T>(address: string, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(address);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Callers running and waiting now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private acquire(address: string): Promise<() => void> {
    if ((this.heldBy.get(address) ?? 0) >= this.options.perAddress) return Promise.reject(new GateRefused('address_busy'));
    if (this.canStart(address)) {
      this.hold(address);
      return Promise.resolve(this.start(address));
    }
    if (this.waiting.length >= this.options.queue) return Promise.reject(new GateRefused('queue_full'));
    this.hold(address);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        address,
        grant: resolve,
        timer: setTimeout(() => {
          const index = this.waiting.indexOf(waiter);
          if (index < 0) return;
          this.waiting.splice(index, 1);
          this.unhold(address);
          reject(new GateRefused('timeout'));
        }, this.options.timeoutMs),
      };
      this.waiting.push(waiter);
    });
  }

  private canStart(address: string): boolean {
    return this.running < this.options.concurrency && (this.runningBy.get(address) ?? 0) < this.sharePerAddress;
  }

  private start(address: string): () => void {
    this.running++;
    this.runningBy.set(address, (this.runningBy.get(address) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const n = (this.runningBy.get(address) ?? 1) - 1;
      if (n > 0) this.runningBy.set(address, n);
      else this.runningBy.delete(address);
      this.unhold(address);
      this.drain();
    };
  }

  /** Hands free slots to the oldest waiters whose address is under its share. */
  private drain(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.options.concurrency;) {
      const waiter = this.waiting[i];
      if (waiter && this.canStart(waiter.address)) {
        this.waiting.splice(i, 1);
        clearTimeout(waiter.timer);
        waiter.grant(this.start(waiter.address));
      } else {
        i++;
      }
    }
  }

  private hold(address: string): void {
    this.heldBy.set(address, (this.heldBy.get(address) ?? 0) + 1);
  }

  private unhold(address: string): void {
    const n = (this.heldBy.get(address) ?? 1) - 1;
    if (n > 0) this.heldBy.set(address, n);
    else this.heldBy.delete(address);
  }
}
