import 'reflect-metadata';
import { Expose, Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, Min, MinLength, ValidateBy } from 'class-validator';

export const DEV_ADMIN_API_KEY = 'dev-admin-key';

export type NodeEnv = 'development' | 'test' | 'production';
export type ServiceRole = 'api' | 'worker' | 'all';

/** Environment strings "true"/"1"/"yes" → true, "false"/"0"/"no" → false, anything else kept (and rejected). */
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  return value;
};

/**
 * A service's public base URL as its clients reach it (`https://api.example.com`, or with the
 * path prefix a proxy adds, `https://example.com/shop`), normalised: lowercase scheme and
 * host, no trailing slash. Undefined unless it is http or https with a host and no
 * credentials, query or fragment. The OpenAPI document's `servers` (docs/openapi.ts).
 */
export function parsePublicUrl(value: string): string | undefined {
  if (value.length > 2048 || /[\s?#\\]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Validates a service's `*_PUBLIC_URL` variable (see parsePublicUrl). An app declares the
 * variable under its own name, like its port, and returns it from `publicUrl`.
 */
export function IsPublicUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isPublicUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parsePublicUrl(value) !== undefined,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be an http:// or https:// URL with a host and no credentials, query or fragment (e.g. https://api.example.com)`,
    },
  });
}

/**
 * Settings every service reads. Each app extends this with its own port and limits.
 * Only `loadConfig` reads the environment; everything else gets this object injected.
 * Property names are the environment variable names, so a validation error names the
 * variable to fix.
 */
export abstract class PlatformConfig {
  /** The port this service listens on (from the app's own `*_PORT` variable). */
  abstract get port(): number;

  /**
   * The service's public base URL (the app's own `*_PUBLIC_URL` variable, validated with
   * `IsPublicUrl`): the OpenAPI document's `servers`. Undefined: the request's origin.
   */
  get publicUrl(): string | undefined {
    return undefined;
  }

  @Expose()
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: NodeEnv = 'development';

  @Expose()
  @IsString()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL!: string;

  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number = 10;

  @Expose()
  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Prefix of every BullMQ key; lets tests and several deployments share one Redis. */
  @Expose()
  @IsString()
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 characters of A-Z a-z 0-9 : _ -' })
  QUEUE_PREFIX: string = 'bull';

  @Expose()
  @IsString()
  @MinLength(8)
  ADMIN_API_KEY = DEV_ADMIN_API_KEY;

  /**
   * Wrong admin keys accepted per client address per minute; past it every admin request
   * from that address is 429 until the minute ends. 0 turns the limit off.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  ADMIN_AUTH_FAILURES_PER_MINUTE: number = 20;

  @Expose()
  @IsIn(['api', 'worker', 'all'])
  ROLE: ServiceRole = 'all';

  @Expose()
  @IsString()
  HOST: string = '0.0.0.0';

  @Expose()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @Expose()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  /**
   * Which proxies to trust for X-Forwarded-For (the client address used by per-IP limits
   * and logs): `false` (default: the socket's peer), a hop count, or a comma-separated list
   * of the proxies' addresses/CIDRs (Fastify's trustProxy). Not `true`: that would take the
   * leftmost X-Forwarded-For entry, which any client writes.
   */
  @Expose()
  @IsString()
  @Matches(/^(false|\d{1,2}|[0-9A-Fa-f.:/]+(\s*,\s*[0-9A-Fa-f.:/]+)*)$/, {
    message: "must be false, a hop count, or a comma-separated list of the proxies' addresses/CIDRs",
  })
  TRUST_PROXY: string = 'false';

  /** TRUST_PROXY as Fastify's trustProxy option. */
  get trustProxy(): boolean | string | ((address: string, hop: number) => boolean) {
    if (this.TRUST_PROXY === 'false') return false;
    if (/^\d+$/.test(this.TRUST_PROXY)) {
      const hops = Number(this.TRUST_PROXY);
      return (_address, hop) => hop < hops;
    }
    return this.TRUST_PROXY;
  }

  /** Largest accepted request body, on every route without its own `@BodyLimit`. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 1_048_576;

  /** How long SIGTERM waits for in-flight requests and jobs before forcing exit. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS: number = 10_000;

  /** How long an unfinished Idempotency-Key claim blocks retries before it is considered abandoned. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  IDEMPOTENCY_LEASE_MS: number = 30_000;

  /** How long idempotent responses are kept for replay (contract: 24 h). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  IDEMPOTENCY_RETENTION_HOURS: number = 24;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /** True when this process serves the public and admin HTTP API. */
  get servesApi(): boolean {
    return this.ROLE !== 'worker';
  }

  /** True when this process runs queue workers. */
  get runsWorkers(): boolean {
    return this.ROLE !== 'api';
  }

  /** Rules across variables; return `[variable, problem]` pairs. */
  crossChecks(): Array<[string, string]> {
    const problems: Array<[string, string]> = [];
    if (this.isProduction && (this.ADMIN_API_KEY === DEV_ADMIN_API_KEY || this.ADMIN_API_KEY.length < 32)) {
      problems.push(['ADMIN_API_KEY', 'must be set to a random value of at least 32 characters in production']);
    }
    return problems;
  }
}
