import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { tracingSwitch } from './tracing-state';

/**
 * A trace context as W3C Trace Context headers (`traceparent`, and `tracestate` when there
 * is one): what an outbox row or a job carries so that work done later, in another process,
 * continues the trace of the request that caused it.
 */
export type TraceCarrier = Readonly<Record<string, string>>;

/**
 * The active trace context as a carrier, for a write that work done later continues (an
 * outbox row); undefined while tracing is off or outside any trace. Called where the write
 * is decided: the repository that stores it never reads ambient state.
 */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (!tracingSwitch.on) return undefined;
  const active = context.active();
  if (trace.getSpan(active) === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier['traceparent'] === undefined ? undefined : carrier;
}

/** Only W3C Trace Context's two headers, as strings, are taken from a stored carrier. */
function asCarrier(value: unknown): TraceCarrier | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}

/**
 * Runs `fn` in the trace context a carrier holds (a stored outbox row's), so the spans it
 * starts — a BullMQ enqueue, a statement — belong to that trace. Runs `fn` as it is when
 * tracing is off or the carrier holds no valid context.
 */
export function withTraceCarrier<T>(carrier: unknown, fn: () => T): T {
  if (!tracingSwitch.on) return fn();
  const valid = asCarrier(carrier);
  if (valid === undefined) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, valid), fn);
}

/**
 * Runs `fn` outside any trace (in the root context): for work done on behalf of many
 * traced operations at once — a batch of statements gathered from several jobs — whose
 * spans would otherwise land in the trace of whichever operation happened to start it.
 * Runs `fn` as it is when tracing is off.
 */
export function withoutTrace<T>(fn: () => T): T {
  if (!tracingSwitch.on) return fn();
  return context.with(ROOT_CONTEXT, fn);
}

/**
 * Names the HTTP server span of the current request after its route template
 * (`POST /v1/things/:id`) and sets `http.route`: instrumentation-http reads the route from
 * the request's RPC metadata when the response finishes. Called by the platform's onRequest hook.
 */
export function setHttpRoute(route: string | undefined): void {
  if (!tracingSwitch.on || route === undefined) return;
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type === RPCType.HTTP) metadata.route = route;
}

/**
 * Runs `fn` inside a span of its own (a child of the active one), ended when `fn` settles,
 * its status an error if `fn` throws. Without tracing, `fn` runs as it is.
 */
export async function inSpan<T>(
  name: string,
  options: { kind: SpanKind; attributes: Attributes },
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingSwitch.on) return fn(undefined);
  return trace
    .getTracer('platform')
    .startActiveSpan(name, { kind: options.kind, attributes: options.attributes }, async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    });
}

/**
 * A query string with every value replaced (`limit=REDACTED&email=REDACTED`), for span
 * attributes: parameter names tell what was asked, values may be secrets or personal data.
 */
export function redactQuery(search: string): string {
  const names = [...new URLSearchParams(search).keys()];
  return names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
}

export { SpanKind, SpanStatusCode };
