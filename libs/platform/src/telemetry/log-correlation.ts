import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { currentRequestId } from '../http/request-context';
import { tracingSwitch } from './tracing-state';

const { chindingsSym } = pino.symbols;

/** Whether the logger's own bindings (a child's, e.g. Fastify's request logger) already hold `reqId`. */
function boundRequestId(logger: Logger): boolean {
  const chindings: unknown = (logger as unknown as Record<symbol, unknown>)[chindingsSym];
  return typeof chindings === 'string' && chindings.includes('"reqId":');
}

/**
 * pino's `mixin` (libs/platform/src/logging/logger.ts): the fields every log line gets from
 * where it is written. While tracing is on, `trace_id` and `span_id` of the active span (the
 * names OpenTelemetry's log data model and its pino instrumentation use); always, inside a
 * request, `reqId` if the line has none (a plain pino call, not only Nest's logger).
 */
export function logCorrelation(mergeObject: object, _level: number, logger: Logger): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!('reqId' in mergeObject)) {
    const reqId = currentRequestId();
    if (reqId !== undefined && !boundRequestId(logger)) fields['reqId'] = reqId;
  }
  if (tracingSwitch.on) {
    const spanContext = trace.getSpan(context.active())?.spanContext();
    if (spanContext !== undefined && isSpanContextValid(spanContext)) {
      fields['trace_id'] = spanContext.traceId;
      fields['span_id'] = spanContext.spanId;
    }
  }
  return fields;
}
