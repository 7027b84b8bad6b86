/**
 * The entry main.ts loads before anything else (`@app/platform/telemetry`): starting and
 * stopping the SDK, nothing that loads a module the SDK instruments. The helpers that use
 * the trace context are exported by the platform's index.
 */
export { shutdownTracing, startTracing, tracingOn, tracingRequested } from './tracing';
