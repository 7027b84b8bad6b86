// libs/auth: building blocks for bearer authentication that apps assemble: one guard over the
// authenticators an app registers, Redis rate limits, API-key caches, revocation broadcast and
// secret hashing. Apps import only from here ('@app/auth').
export * from './api-key-cache';
export * from './auth.decorators';
export { AuthGuard } from './auth.guard';
export * from './auth.module';
export * from './auth.options';
export * from './authenticator';
export * from './principal';
export { type RateLimitDecision, RateLimiter } from './rate-limit/rate-limiter.service';
export { RevocationBus } from './revocation-bus';
export * from './secrets';
export * from './last-used';
export * from './console/console-sessions';
export { CONSOLE_ERRORS, ConsoleError, consoleSessionInvalid } from './console/console.errors';
export {
  CONSOLE_SESSIONS_PRUNE_EVERY_MS,
  CONSOLE_SESSIONS_PRUNE_QUEUE,
  ConsoleSessionsPruneJob,
} from './console/console-sessions-prune.job';
