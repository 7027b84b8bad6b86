import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_URL_QUERY } from '@opentelemetry/semantic-conventions';
import { redactQuery } from './trace-context';

/** Probes and scrapes: answered many times a minute, never worth a trace. */
const UNTRACED_PATHS = /^\/(health\/(live|ready)|metrics)(\?|$)/;

/**
 * The SDK as the services run it (loaded only when tracing is on, see startTracing):
 * traces only, configured by the standard OTEL_* variables (endpoint, protocol, headers,
 * sampler, OTEL_BSP_* batching, resource attributes). Metrics stay on Prometheus' /metrics
 * and logs on stdout: the SDK gets no metric reader and no log processor (without them it
 * would post /v1/metrics and /v1/logs to the same endpoint).
 *
 * Spans: one SERVER span per HTTP request (named `{METHOD} {route}` by the platform's route
 * hook), PostgreSQL statements (text with `$n` placeholders; parameter values are never
 * recorded: enhancedDatabaseReporting stays off) and Redis commands (the command name
 * only) made inside a traced operation, outgoing fetch. Outgoing node:http requests get no
 * automatic span and no `traceparent` header: the only ones are webhook attempts, which
 * have their own span and go to third parties.
 */
export function createTracingSdk(serviceName: string | undefined): NodeSDK {
  return new NodeSDK({
    ...(serviceName === undefined ? {} : { serviceName }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? ''),
        disableOutgoingRequestInstrumentation: true,
        requestHook: (span, request) => {
          const url = (request as IncomingMessage).url ?? '';
          const q = url.indexOf('?');
          if (q >= 0) span.setAttribute(ATTR_URL_QUERY, redactQuery(url.slice(q + 1)));
        },
      }),
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
}
