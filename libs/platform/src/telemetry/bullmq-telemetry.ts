import { type Context, context, trace } from '@opentelemetry/api';
import { SpanKind, type Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { tracingSwitch } from './tracing-state';

/** What BullMQ gets for a span it would start outside any trace for its own housekeeping. */
const unrecordedSpan = {
  setSpanOnContext: <C>(ctx: C): C => ctx,
  setAttribute: (): void => undefined,
  setAttributes: (): void => undefined,
  addEvent: (): void => undefined,
  recordException: (): void => undefined,
  end: (): void => undefined,
};

/**
 * The `telemetry` option of every BullMQ Queue and Worker the platform creates, while
 * tracing is on (undefined otherwise: BullMQ then skips all of it). bullmq-otel gives the
 * producer span of an add (PRODUCER `add <queue>` / `addBulk <queue>`), the consumer span of
 * a job (CONSUMER `process <queue>`, a child of the producer's context that the job carries
 * in its options) and BullMQ's INTERNAL spans. Those INTERNAL spans that would start a trace
 * of their own — a worker's poll for its next job, its stalled-jobs check, every few seconds
 * whatever happens — are not recorded.
 */
export function bullTelemetry(): Telemetry | undefined {
  if (!tracingSwitch.on) return undefined;
  const otel = new BullMQOtel({ tracerName: 'bullmq' });
  const tracer = otel.tracer;
  return {
    contextManager: otel.contextManager,
    tracer: {
      startSpan(name, options, ctx) {
        const parent = (ctx as Context | undefined) ?? context.active();
        if (options?.kind === SpanKind.INTERNAL && trace.getSpan(parent) === undefined) return unrecordedSpan;
        return tracer.startSpan(name, options, parent);
      },
    },
  };
}
