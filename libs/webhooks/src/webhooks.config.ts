import 'reflect-metadata';
import { ConfigError, type NodeEnv, toBoolean } from '@app/platform';
import { Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';

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
 * Webhook settings, read once at boot from the environment (variable names are the
 * property names). Not a PlatformConfig: each app keeps its own config and the webhooks
 * module reads only these variables (see `loadWebhooksConfig`).
 */
export class WebhooksConfig {
  /** Allow endpoint URLs on loopback/private/link-local/metadata addresses. Unset: true unless NODE_ENV=production. */
  @Expose()
  @IsOptional()
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
  WEBHOOK_WORKER_CONCURRENCY: number = 20;

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
   * Events (with their deliveries and attempts) older than this many days are purged once
   * every delivery of theirs has finished; 0 keeps them forever.
   */
  @Expose()
  @Type(() => Number)
  @IsNumber()
  @Min(0)
  WEBHOOK_RETENTION_DAYS: number = 30;

  /** Resolved by loadWebhooksConfig. */
  allowPrivateUrls = false;
  /** Resolved by loadWebhooksConfig: `https:` is required in production. */
  requireHttps = false;
  /** Milliseconds before retry n (index n-1), parsed from WEBHOOK_RETRY_SCHEDULE. */
  retryScheduleMs: readonly number[] = [];

  get secretGraceMs(): number {
    return Math.round(this.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000);
  }

  get retentionMs(): number {
    return Math.round(this.WEBHOOK_RETENTION_DAYS * 86_400_000);
  }

  get disableAfterMs(): number {
    return Math.round(this.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000);
  }
}

/**
 * Reads and validates the WEBHOOK_* variables, failing fast with a ConfigError naming the
 * variable (the platform's loadConfig pattern, without extending PlatformConfig).
 */
export function loadWebhooksConfig(env: Readonly<Record<string, string | undefined>>, nodeEnv: NodeEnv): WebhooksConfig {
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('WEBHOOK_') && v !== undefined && v !== '') defined[k] = v;
  const config = plainToInstance(WebhooksConfig, defined, { excludeExtraneousValues: true, exposeDefaultValues: true });
  const problems: Array<[string, string]> = validateSync(config, { forbidUnknownValues: false }).map((e) => [
    e.property,
    `${Object.values(e.constraints ?? {})
      .map((m) => m.replace(new RegExp(`^${e.property}\\s+`), ''))
      .join(', ')} (got ${JSON.stringify(env[e.property])})`,
  ]);
  if (problems.length === 0 && config.WEBHOOK_LOCK_DURATION_MS <= config.WEBHOOK_TIMEOUT_MS) {
    problems.push(['WEBHOOK_LOCK_DURATION_MS', 'must be greater than WEBHOOK_TIMEOUT_MS']);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  config.allowPrivateUrls = config.WEBHOOK_ALLOW_PRIVATE_URLS ?? nodeEnv !== 'production';
  config.requireHttps = nodeEnv === 'production';
  config.retryScheduleMs = config.WEBHOOK_RETRY_SCHEDULE.split(',').map((part) => parseDuration(part) ?? 0);
  return config;
}
