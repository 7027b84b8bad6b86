import 'reflect-metadata';
import { Expose, Type } from 'class-transformer';
import { getMetadataStorage, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy } from 'class-validator';
import { type ColorMode, colorMode } from '../logging/pretty-lines';
import { parseHostPorts, type RedisTopology } from '../queue/redis-topology';

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

const IS_PUBLIC_URL = 'isPublicUrl';

/**
 * Validates a service's `*_PUBLIC_URL` variable (see parsePublicUrl). An app declares the
 * variable under its own name, like its port, and returns it from `publicUrl`.
 */
export function IsPublicUrl(): PropertyDecorator {
  return ValidateBy({
    name: IS_PUBLIC_URL,
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parsePublicUrl(value) !== undefined,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be an http:// or https:// URL with a host and no credentials, query or fragment (e.g. https://api.example.com)`,
    },
  });
}

/** A `host:port,host:port,…` list (parseHostPorts); the message's example uses `examplePort`. */
function IsHostPortList(examplePort: number): PropertyDecorator {
  const example = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((host) => `${host}:${examplePort}`).join(',');
  return ValidateBy({
    name: 'isHostPortList',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseHostPorts(value) !== undefined,
      defaultMessage: () => `must be a comma-separated list of host:port (e.g. ${example})`,
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
   * `IsPublicUrl`): the OpenAPI document's `servers` and the base of console sign-in links.
   * Required in production (crossChecks). Undefined: the request's origin for the document,
   * `loopbackUrl` for links.
   */
  get publicUrl(): string | undefined {
    return undefined;
  }

  /** The name of the app's `*_PUBLIC_URL` variable: the property it declared with `@IsPublicUrl()`. */
  get publicUrlVariable(): string | undefined {
    const rules = getMetadataStorage().getTargetValidationMetadatas(this.constructor, '', true, false);
    return rules.find((rule) => rule.name === IS_PUBLIC_URL)?.propertyName;
  }

  /**
   * Where this process itself answers on loopback (`http://127.0.0.1:<port>`): the base of
   * console sign-in links outside production when `*_PUBLIC_URL` is unset. Never the request's
   * Host header, which the client writes.
   */
  get loopbackUrl(): string {
    return `http://127.0.0.1:${this.port}`;
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

  /**
   * Redis, one of three ways (docs/operations.md, "Redis topologies"): a single server at
   * REDIS_URL; a Sentinel group (REDIS_SENTINELS with REDIS_SENTINEL_NAME); or a Redis
   * Cluster (REDIS_CLUSTER_NODES). At most one of the three; none means redis://127.0.0.1:6379.
   */
  @Expose()
  @IsOptional()
  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** Sentinel mode: the Sentinels' addresses, `host:port,host:port,…` (three or more in production). */
  @Expose()
  @IsOptional()
  @IsString()
  @IsHostPortList(26379)
  REDIS_SENTINELS?: string;

  /** Sentinel mode: the name the Sentinels monitor the primary under (`sentinel monitor <name> …`). */
  @Expose()
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1-64 characters of A-Z a-z 0-9 . _ -' })
  REDIS_SENTINEL_NAME?: string;

  /** Sentinel mode: the Sentinels' own password (`requirepass` of sentinel.conf), if they have one. */
  @Expose()
  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  /** Cluster mode: some of the cluster's nodes, `host:port,…` (the rest are discovered). */
  @Expose()
  @IsOptional()
  @IsString()
  @IsHostPortList(6379)
  REDIS_CLUSTER_NODES?: string;

  /** Sentinel and cluster modes: the data nodes' ACL user and password (single mode: in REDIS_URL). */
  @Expose()
  @IsOptional()
  @IsString()
  REDIS_USERNAME?: string;

  @Expose()
  @IsOptional()
  @IsString()
  REDIS_PASSWORD?: string;

  /** How this process reaches Redis, from the variables above (validated by crossChecks). */
  get redisTopology(): RedisTopology {
    const auth = {
      ...(this.REDIS_USERNAME === undefined ? {} : { username: this.REDIS_USERNAME }),
      ...(this.REDIS_PASSWORD === undefined ? {} : { password: this.REDIS_PASSWORD }),
    };
    if (this.REDIS_SENTINELS !== undefined) {
      return {
        mode: 'sentinel',
        sentinels: parseHostPorts(this.REDIS_SENTINELS) ?? [],
        name: this.REDIS_SENTINEL_NAME ?? '',
        ...(this.REDIS_SENTINEL_PASSWORD === undefined ? {} : { sentinelPassword: this.REDIS_SENTINEL_PASSWORD }),
        ...auth,
      };
    }
    if (this.REDIS_CLUSTER_NODES !== undefined) {
      return { mode: 'cluster', nodes: parseHostPorts(this.REDIS_CLUSTER_NODES) ?? [], ...auth };
    }
    return { mode: 'single', url: this.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  }

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

  /**
   * Failed console sign-ins (`POST /console/sign-in` with a link token that opens no session)
   * accepted per client address per minute (IPv6 per /64; see TRUST_PROXY); past it every
   * sign-in from that address is 429 until the minute ends. 0 turns the limit off.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONSOLE_SIGN_IN_FAILURES_PER_MINUTE: number = 20;

  /**
   * A console session ends this many hours after its sign-in, whatever its activity (besides
   * the 12 h idle expiry). Default 168 (7 days).
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(24 * 365)
  CONSOLE_SESSION_MAX_AGE_HOURS: number = 168;

  @Expose()
  @IsIn(['api', 'worker', 'all'])
  ROLE: ServiceRole = 'all';

  @Expose()
  @IsString()
  HOST: string = '0.0.0.0';

  @Expose()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /**
   * `json` (default, every environment): one JSON object per line. `pretty`: one short line
   * per request or event for a person at a terminal (libs/platform/src/logging/pretty-lines.ts,
   * no dev dependency). `npm start` chooses `pretty` in development unless LOG_FORMAT is set.
   */
  @Expose()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  /** The no-color.org convention: set (non-empty), LOG_FORMAT=pretty writes no ANSI colour. */
  @Expose()
  @IsOptional()
  @IsString()
  NO_COLOR?: string;

  /** Anything but `0`/`false`: LOG_FORMAT=pretty writes colour even when stdout is not a terminal. */
  @Expose()
  @IsOptional()
  @IsString()
  FORCE_COLOR?: string;

  /** Colour of the pretty format, from NO_COLOR and FORCE_COLOR (`auto`: when stdout is a terminal). */
  get logColor(): ColorMode {
    return colorMode({ NO_COLOR: this.NO_COLOR, FORCE_COLOR: this.FORCE_COLOR });
  }

  /** LOG_LEVEL, LOG_FORMAT and the colour, as the root logger takes them. */
  get logOptions(): { level: string; format: 'json' | 'pretty'; color: ColorMode } {
    return { level: this.LOG_LEVEL, format: this.LOG_FORMAT, color: this.logColor };
  }

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
    const publicUrlVariable = this.publicUrlVariable;
    if (this.isProduction && publicUrlVariable !== undefined && this.publicUrl === undefined) {
      problems.push([
        publicUrlVariable,
        'is required in production: the URL clients reach this service at (e.g. https://api.example.com); console sign-in links are built from it',
      ]);
    }
    const modes = (['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const).filter((v) => this[v] !== undefined);
    if (modes.length > 1) {
      problems.push([modes[1] ?? 'REDIS_URL', `cannot be set together with ${modes[0] ?? ''}: choose one way to reach Redis`]);
    }
    if (this.REDIS_SENTINELS !== undefined && this.REDIS_SENTINEL_NAME === undefined) {
      problems.push([
        'REDIS_SENTINEL_NAME',
        'must be set with REDIS_SENTINELS (the name the Sentinels monitor the primary under)',
      ]);
    }
    if (this.REDIS_SENTINELS === undefined) {
      for (const v of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
        if (this[v] !== undefined) problems.push([v, 'is only used with REDIS_SENTINELS']);
      }
    }
    if (this.REDIS_SENTINELS === undefined && this.REDIS_CLUSTER_NODES === undefined) {
      for (const v of ['REDIS_USERNAME', 'REDIS_PASSWORD'] as const) {
        if (this[v] !== undefined) {
          problems.push([
            v,
            'is only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (a single server takes its credentials in REDIS_URL)',
          ]);
        }
      }
    }
    return problems;
  }
}
