/**
 * Whether the SDK runs in this process: read by every hot-path helper (log mixin, HTTP
 * route hook, spans of the platform) so that with tracing off each costs one property read.
 */
export const tracingSwitch = { on: false };
