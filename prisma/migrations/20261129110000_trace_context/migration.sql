-- Tracing (issue 36, docs/operations.md "Tracing"): the trace context of the transaction that
-- wrote an event (W3C Trace Context headers as JSON: {"traceparent": …, "tracestate": …}),
-- so that its dispatch, delivery jobs and attempts continue the same trace. Null while
-- tracing is off.
ALTER TABLE "webhook_events" ADD COLUMN "trace_context" JSONB;
