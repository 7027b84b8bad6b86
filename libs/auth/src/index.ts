// libs/auth: OAuth 2.0 client credentials (offers), API keys (vector, payments), one guard
// for all three, and Redis rate limits. Apps import only from here ('@app/auth').
export * from './auth.decorators';
export { AuthGuard } from './auth.guard';
export * from './auth.module';
export * from './auth.options';
export * from './jwt-keys';
export * from './principal';
export { RateLimiter } from './rate-limit/rate-limiter.service';
