import 'reflect-metadata';
import { PlatformConfig, toBoolean } from '@app/platform';
import { Expose, Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** "5s" → 5000; "1.5h" → 5400000; undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return Math.round(Number(m[1]) * (UNIT_MS[m[2]] ?? 0));
}

/** The contract's schedule (platform contract, Webhooks): delays before retries 1..7. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/**
 * Webhook settings: the platform's plus the WEBHOOK_* variables (property names are the
 * variable names). An app that imports WebhooksModule extends its config class from this
 * one, so the platform's `loadConfig` reads and validates them with the rest of the app's
 * environment, once, at boot.
 */
export abstract class WebhooksConfig extends PlatformConfig {
  /** Allow endpoint URLs on loopback/private/link-local/metadata addresses. Unset: true unless NODE_ENV=production. */
  @Expose()
  @IsOptional()
  // a string for toBoolean, not the implicit Boolean("false") === true conversion
  @Type(() => String)
  @Transform(toBoolean)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_URLS?: boolean;

  /** How long the secret before a rotation keeps signing (both signatures are sent). */
  @Expose()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  @Max(24 * 30)
  WEBHOOK_SECRET_GRACE_HOURS: number = 24;

  /** A receiver that has not answered (headers and body) within this is a failed attempt. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /** Delays before each retry, comma-separated durations (ms, s, m, h). Its length is the number of retries. */
  @Expose()
  @IsString()
  @Matches(/^\s*\d+(\.\d+)?(ms|s|m|h)\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*)*$/, {
    message: 'must be a comma-separated list of durations such as 5s,5m,30m,2h',
  })
  WEBHOOK_RETRY_SCHEDULE: string = DEFAULT_RETRY_SCHEDULE;

  /** An endpoint whose attempts have all failed for this long is disabled (5 days). */
  @Expose()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  WEBHOOK_DISABLE_AFTER_HOURS: number = 120;

  /** Period of the outbox sweep and the stuck-delivery sweep (LISTEN/NOTIFY covers the normal case). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(50)
  WEBHOOK_SWEEP_INTERVAL_MS: number = 10_000;

  /** Concurrent deliveries per worker process. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  WEBHOOK_WORKER_CONCURRENCY: number = 50;

  /**
   * Attempts in flight at once to one endpoint, per worker process. A delivery that finds
   * its endpoint at the limit waits (parked, without an attempt) for one of them to end.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  WEBHOOK_ENDPOINT_CONCURRENCY: number = 4;

  /**
   * Attempts in flight at once for one owner (all its endpoints), per worker process.
   * Unset: a quarter of WEBHOOK_WORKER_CONCURRENCY, rounded up (13 of 50), so an owner whose
   * receivers hang holds at most that share of the worker's slots.
   */
  @Expose()
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  WEBHOOK_OWNER_CONCURRENCY?: number;

  /**
   * The worker loads the work of the jobs that start within this many ms with one query,
   * and records the attempts that end within it with one statement (a job completes only
   * once its record is committed). 0: each on its own (next timer tick).
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100)
  WEBHOOK_BATCH_WINDOW_MS: number = 2;

  /** Keep-alive connections open at once to one receiver origin (host and port), per worker process. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  WEBHOOK_HTTP_MAX_SOCKETS_PER_ORIGIN: number = 32;

  /** Connections open at once to all receivers together, per worker process. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_HTTP_MAX_SOCKETS: number = 512;

  /** Idle keep-alive connections kept per receiver origin (closed after 4 s idle). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000)
  WEBHOOK_HTTP_MAX_FREE_SOCKETS: number = 32;

  /** Endpoints one owner may register (disabled ones included); 0: no limit. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100_000)
  WEBHOOK_MAX_ENDPOINTS_PER_OWNER: number = 16;

  /**
   * BullMQ lock duration: a delivery whose worker died is handed to another worker after
   * about this long. Must exceed WEBHOOK_TIMEOUT_MS.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(500)
  WEBHOOK_LOCK_DURATION_MS: number = 30_000;

  /**
   * Events older than this many days leave the events API at once and are purged (with
   * their deliveries and attempts) once every delivery of theirs has finished; 0 keeps them
   * forever. Default 30 (platform contract, Events API).
   */
  @Expose()
  @IsOptional()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  EVENT_RETENTION_DAYS?: number;

  /** The name EVENT_RETENTION_DAYS had before the events API; read when that one is unset. */
  @Expose()
  @IsOptional()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  WEBHOOK_RETENTION_DAYS?: number;

  /** Whether endpoint URLs may point to private addresses (WEBHOOK_ALLOW_PRIVATE_URLS, else outside production). */
  get allowPrivateUrls(): boolean {
    return this.WEBHOOK_ALLOW_PRIVATE_URLS ?? !this.isProduction;
  }

  /** `https:` is required in production. */
  get requireHttps(): boolean {
    return this.isProduction;
  }

  /** Milliseconds before retry n (index n-1), parsed from WEBHOOK_RETRY_SCHEDULE. */
  get retryScheduleMs(): readonly number[] {
    return this.WEBHOOK_RETRY_SCHEDULE.split(',').map((part) => parseDuration(part) ?? 0);
  }

  /** In-flight attempts one owner may have in a worker process (WEBHOOK_OWNER_CONCURRENCY, else a quarter of the worker's). */
  get ownerConcurrency(): number {
    return this.WEBHOOK_OWNER_CONCURRENCY ?? Math.max(1, Math.ceil(this.WEBHOOK_WORKER_CONCURRENCY / 4));
  }

  get secretGraceMs(): number {
    return Math.round(this.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000);
  }

  /** EVENT_RETENTION_DAYS (else the older WEBHOOK_RETENTION_DAYS, else 30). */
  get retentionDays(): number {
    return this.EVENT_RETENTION_DAYS ?? this.WEBHOOK_RETENTION_DAYS ?? 30;
  }

  get retentionMs(): number {
    return Math.round(this.retentionDays * 86_400_000);
  }

  get disableAfterMs(): number {
    return Math.round(this.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000);
  }

  override crossChecks(): Array<[string, string]> {
    const problems = super.crossChecks();
    if (this.WEBHOOK_LOCK_DURATION_MS <= this.WEBHOOK_TIMEOUT_MS) {
      problems.push(['WEBHOOK_LOCK_DURATION_MS', 'must be greater than WEBHOOK_TIMEOUT_MS']);
    }
    return problems;
  }
}
