import { Writable } from 'node:stream';
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, context, type ContextManager, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { runWithRequestId } from '../http/request-context';
import { createRootLogger } from '../logging/logger';
import { bullTelemetry } from './bullmq-telemetry';
import { currentTraceCarrier, redactQuery, withoutTrace, withTraceCarrier } from './trace-context';
import { defaultServiceName, startTracing, tracingOn, tracingRequested } from './tracing';
import { tracingSwitch } from './tracing-state';

describe('tracingRequested', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('%j → %s', (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
  });
});

describe('defaultServiceName', () => {
  it("is the service's name unless OTEL_SERVICE_NAME or a service.name resource attribute says otherwise", () => {
    expect(defaultServiceName({}, 'svc-api')).toBe('svc-api');
    expect(defaultServiceName({ OTEL_SERVICE_NAME: 'edge' }, 'svc-api')).toBeUndefined();
    expect(
      defaultServiceName({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod, service.name=edge' }, 'svc-api'),
    ).toBeUndefined();
    expect(defaultServiceName({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod' }, 'svc-api')).toBe('svc-api');
  });
});

describe('redactQuery', () => {
  it('keeps the parameter names and replaces every value', () => {
    expect(redactQuery('limit=10&email=a%40b.example&access_token=secret')).toBe(
      'limit=REDACTED&email=REDACTED&access_token=REDACTED',
    );
    expect(redactQuery('')).toBe('');
  });
});

describe('tracing off (no endpoint)', () => {
  it('starts nothing: no SDK, the global tracer provider is the no-op one, no span records', async () => {
    await expect(startTracing('svc-api', {})).resolves.toBe(false);
    expect(tracingOn()).toBe(false);
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toBe('00000000000000000000000000000000');
    span.end();
    expect(currentTraceCarrier()).toBeUndefined();
    expect(bullTelemetry()).toBeUndefined();
    expect(withTraceCarrier({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, () => 'ran')).toBe('ran');
  });
});

describe('log lines (pino mixin)', () => {
  function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    return { lines, stream };
  }

  it('a plain pino call inside a request gets its reqId; a bound or given reqId is not repeated; none outside a request', async () => {
    const { lines, stream } = capture();
    const logger = createRootLogger({ service: 'svc-api', level: 'info', format: 'json' }, stream);
    runWithRequestId('req_plain', () => logger.info('plain'));
    runWithRequestId('req_bound', () => logger.child({ reqId: 'req_bound' }).info('bound'));
    runWithRequestId('req_outer', () => logger.info({ reqId: 'req_given' }, 'given'));
    logger.info('outside');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => [l['msg'], l['reqId']])).toEqual([
      ['plain', 'req_plain'],
      ['bound', 'req_bound'],
      ['given', 'req_given'],
      ['outside', undefined],
    ]);
    // no trace fields while tracing is off
    expect(lines.some((l) => 'trace_id' in l || 'span_id' in l)).toBe(false);
  });

  it('a child bound with reqId writes the key once', async () => {
    const raw: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        raw.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createRootLogger({ service: 'svc-api', level: 'info', format: 'json' }, stream);
    runWithRequestId('req_bound', () => logger.child({ reqId: 'req_bound' }).info('bound'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(raw[0]?.match(/"reqId":/g)).toHaveLength(1);
  });
});

describe('withoutTrace', () => {
  /** The part of a context manager these tests need: AsyncLocalStorage, as the SDK's own. */
  class StorageContextManager implements ContextManager {
    private readonly storage = new AsyncLocalStorage<Context>();
    active(): Context {
      return this.storage.getStore() ?? ROOT_CONTEXT;
    }
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      ctx: Context,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F> {
      return this.storage.run(ctx, () => fn.call(thisArg, ...args));
    }
    bind<T>(_ctx: Context, target: T): T {
      return target;
    }
    enable(): this {
      return this;
    }
    disable(): this {
      this.storage.disable();
      return this;
    }
  }
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
  });
  const activeTraceId = (): string | undefined => trace.getSpan(context.active())?.spanContext().traceId;

  beforeAll(() => {
    context.setGlobalContextManager(new StorageContextManager());
    tracingSwitch.on = true;
  });
  afterAll(() => {
    tracingSwitch.on = false;
    context.disable();
  });

  it('runs its function outside the active trace while tracing is on, and as it is when off', async () => {
    await context.with(parent, async () => {
      expect(activeTraceId()).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(withoutTrace(activeTraceId)).toBeUndefined();
      // a promise started inside keeps the root context across awaits
      await expect(withoutTrace(async () => (await Promise.resolve(), activeTraceId()))).resolves.toBeUndefined();
      tracingSwitch.on = false;
      try {
        expect(withoutTrace(activeTraceId)).toBe('0af7651916cd43dd8448eb211c80319c');
      } finally {
        tracingSwitch.on = true;
      }
    });
  });
});
