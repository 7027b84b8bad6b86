import { type Context, context, trace } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
  MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
  MESSAGING_OPERATION_TYPE_VALUE_SEND,
} from '@opentelemetry/semantic-conventions/incubating';
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
 * in its options), both with OpenTelemetry's messaging attributes (`messaging.system` =
 * bullmq, `messaging.destination.name` = the queue, `messaging.operation.type` = send or
 * process), and BullMQ's INTERNAL spans. Those INTERNAL spans that would start a trace
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
        const span = tracer.startSpan(name, options, parent);
        if (options?.kind === SpanKind.PRODUCER || options?.kind === SpanKind.CONSUMER) {
          // BullMQ names them `{operation} {queue}`; OpenTelemetry's messaging conventions besides its own bullmq.* attributes
          const space = name.indexOf(' ');
          span.setAttributes({
            [ATTR_MESSAGING_SYSTEM]: 'bullmq',
            [ATTR_MESSAGING_OPERATION_NAME]: space < 0 ? name : name.slice(0, space),
            [ATTR_MESSAGING_DESTINATION_NAME]: space < 0 ? '' : name.slice(space + 1),
            [ATTR_MESSAGING_OPERATION_TYPE]:
              options.kind === SpanKind.PRODUCER ? MESSAGING_OPERATION_TYPE_VALUE_SEND : MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
          });
        }
        return span;
      },
    },
  };
}
