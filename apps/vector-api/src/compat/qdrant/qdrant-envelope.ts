import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { map, type Observable } from 'rxjs';

/** Qdrant's answer envelope: `{"result": …, "status": "ok", "time": <seconds>}`. */
export interface QdrantAnswer<T> {
  readonly result: T;
  readonly status: 'ok';
  readonly time: number;
}

/** Wraps every 200 answer of the Qdrant-compatible routes in Qdrant's envelope (the handler's time, in seconds). */
@Injectable()
export class QdrantEnvelope implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<QdrantAnswer<unknown>> {
    const started = performance.now();
    return next
      .handle()
      .pipe(map((result: unknown) => ({ result, status: 'ok' as const, time: (performance.now() - started) / 1000 })));
  }
}
