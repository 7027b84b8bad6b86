import { tracingSwitch } from './tracing-state';

/** The environment variables OpenTelemetry's SDK reads; only the ones that decide whether it starts are named here. */
export interface TracingEnvironment {
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  readonly OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  readonly OTEL_SDK_DISABLED?: string | undefined;
  readonly OTEL_TRACES_EXPORTER?: string | undefined;
  readonly OTEL_SERVICE_NAME?: string | undefined;
  readonly OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
}

/**
 * Whether tracing is asked for: an OTLP endpoint is set (all signals' or traces' own), the
 * SDK is not disabled, and the traces exporter is not `none`. OpenTelemetry's own default
 * (export to localhost:4318 when nothing is set) deliberately does not apply: no endpoint,
 * no SDK.
 */
export function tracingRequested(env: TracingEnvironment): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() || (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (endpoint === '') return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return !(env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .includes('none');
}

/**
 * The service name on the spans: OTEL_SERVICE_NAME, or `service.name` in
 * OTEL_RESOURCE_ATTRIBUTES, when set (the SDK reads them); else the service's own name.
 */
export function defaultServiceName(env: TracingEnvironment, serviceName: string): string | undefined {
  if ((env.OTEL_SERVICE_NAME ?? '').trim() !== '') return undefined;
  const attributes = (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',').map((pair) => pair.split('=')[0]?.trim());
  return attributes.includes('service.name') ? undefined : serviceName;
}

let shutdownSdk: (() => Promise<void>) | undefined;

/**
 * Starts OpenTelemetry tracing for this process if `tracingRequested` — call it from main.ts
 * before the service's own modules load, so that the instrumentations patch http, pg and
 * ioredis before anything uses them. Otherwise it does nothing at all: the SDK is not even
 * loaded and no module is patched. Resolves true if tracing started.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (shutdownSdk !== undefined) return true;
  if (!tracingRequested(env)) return false;
  const { createTracingSdk } = await import('./sdk');
  const sdk = createTracingSdk(defaultServiceName(env, serviceName));
  sdk.start();
  shutdownSdk = () => sdk.shutdown();
  tracingSwitch.on = true;
  return true;
}

/** Flushes the spans still buffered and stops the SDK (SIGTERM, after the app closed); nothing if tracing is off. */
export async function shutdownTracing(): Promise<void> {
  const shutdown = shutdownSdk;
  if (shutdown === undefined) return;
  shutdownSdk = undefined;
  tracingSwitch.on = false;
  await shutdown();
}

/** Whether this process started tracing (the SDK is running). */
export function tracingOn(): boolean {
  return tracingSwitch.on;
}
