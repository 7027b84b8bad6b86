import { BeforeBodyGuard } from '@app/platform';
import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { VectorConfig } from '../config';

/**
 * A budget of bytes shared by the requests holding it, admitted first come, first served.
 * One request larger than the whole budget is admitted when nothing else holds any, so no
 * request waits forever.
 */
export class ByteBudget {
  private held = 0;
  private peak = 0;
  private readonly waiting: Array<{ readonly bytes: number; readonly admit: () => void }> = [];

  constructor(readonly capacity: number) {}

  /** Bytes held now, and the most ever held at once (tests, metrics). */
  get inFlight(): number {
    return this.held;
  }

  get maxInFlight(): number {
    return this.peak;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.capacity;
  }

  private take(bytes: number): void {
    this.held += bytes;
    this.peak = Math.max(this.peak, this.held);
  }

  /** Resolves once `bytes` are admitted; call the returned function (once) to give them back. */
  async acquire(bytes: number): Promise<() => void> {
    if (this.waiting.length === 0 && this.fits(bytes)) this.take(bytes);
    else await new Promise<void>((admit) => this.waiting.push({ bytes, admit }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    for (let next = this.waiting[0]; next !== undefined && this.fits(next.bytes); next = this.waiting[0]) {
      this.waiting.shift();
      this.take(next.bytes);
      next.admit();
    }
  }
}

/**
 * Inserts and upserts are admitted by a per-process budget of body bytes in flight
 * (VECTOR_INSERT_BYTES_IN_FLIGHT, decision 156), before their body is read: parsing a 40 MB
 * body, checking its rows and adding them to the table each hold the event loop for a while
 * and keep the body's objects on the heap, so three concurrent 60 MB inserts stalled every
 * other tenant for 6 s (issue 31). A body waits (unread, in the socket) until the bytes
 * of those before it are given back, when its answer is sent or its connection closes.
 * Runs in the route's preParsing hook, after authentication (route-policies.ts).
 */
@Injectable()
export class InsertAdmission extends BeforeBodyGuard {
  readonly budget: ByteBudget;

  constructor(private readonly config: VectorConfig) {
    super();
    this.budget = new ByteBudget(config.VECTOR_INSERT_BYTES_IN_FLIGHT);
  }

  protected async check(context: ExecutionContext): Promise<void> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const limit = this.config.VECTOR_INSERT_BODY_LIMIT_BYTES;
    const declared = Number(request.headers['content-length']);
    // A chunked body counts as the largest allowed.
    const bytes = Number.isInteger(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
    let gone = false;
    const onClose = (): void => {
      gone = true;
    };
    reply.raw.once('close', onClose);
    const release = await this.budget.acquire(bytes);
    reply.raw.off('close', onClose);
    if (gone || reply.raw.writableFinished) {
      release(); // the client left while this request waited
      return;
    }
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
  }
}
