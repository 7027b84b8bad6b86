import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock } from '../clock';
import { PlatformConfig } from '../config/platform-config';
import type { Prisma } from '../database/generated/client';
import { DomainError } from '../errors/domain-error';
import { MetricsService } from '../metrics/metrics.service';
import type { ResponseSealer, StoredResponse } from './idempotency-context';
import { IdempotencyRepository } from './idempotency.repository';

export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly id: string }
  | { readonly kind: 'replay'; readonly status: number; readonly body: unknown };

/**
 * JSON with object keys sorted at every level, so key order never changes a fingerprint.
 * Iterative (an explicit stack of pending values and literal text): the body is fingerprinted
 * before validation, and a recursive walk overflowed the call stack on a deeply nested one.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Array<{ readonly value: unknown } | string> = [{ value }];
  const pushReversed = (parts: Array<{ readonly value: unknown } | string>): void => {
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  };
  while (stack.length > 0) {
    const item = stack.pop() as { readonly value: unknown } | string;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      const parts: Array<{ readonly value: unknown } | string> = ['['];
      v.forEach((element: unknown, i) => parts.push(...(i > 0 ? [','] : []), { value: element }));
      parts.push(']');
      pushReversed(parts);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, e]) => e !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const parts: Array<{ readonly value: unknown } | string> = ['{'];
      entries.forEach(([k, e], i) => parts.push(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`, { value: e }));
      parts.push('}');
      pushReversed(parts);
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a sealed response is bound to: its record (scope and row id), so it cannot be replayed elsewhere. */
function sealContext(scope: string, id: string): string {
  return `${scope}\n${id}`;
}

/**
 * Idempotency-Key semantics (platform contract, "Idempotency"):
 * claim (scope, key) atomically; same key + same request → the stored response; same key +
 * another request → 422; still running → 409 with Retry-After; a claim whose request died
 * is taken over after the lease; records are kept IDEMPOTENCY_RETENTION_HOURS. The scope is
 * the caller's tenant and mode (third round), not its credential. With a `sealer`, the
 * response is stored encrypted and decrypted for a replay (a route whose answer is a secret).
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly config: PlatformConfig,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
  ) {}

  async claim(
    scope: string,
    key: string,
    method: string,
    path: string,
    body: unknown,
    sealer?: ResponseSealer,
  ): Promise<ClaimOutcome> {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new DomainError('parameter_invalid', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`, {
        param: 'Idempotency-Key',
      });
    }
    const fingerprint = requestFingerprint(method, path, body);
    const now = this.clock.now();
    const lockedUntil = new Date(now.getTime() + this.config.IDEMPOTENCY_LEASE_MS);
    const expiresAt = new Date(now.getTime() + this.config.IDEMPOTENCY_RETENTION_HOURS * 3_600_000);
    const id = randomUUID();

    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.repository.tryClaim({ id, scope, key, fingerprint, method, path, lockedUntil, expiresAt })) {
        return { kind: 'claimed', id };
      }
      const existing = await this.repository.find(scope, key);
      if (!existing) continue; // released or purged between the two statements: try again
      const expired = existing.expiresAt < now;
      if (!expired && existing.fingerprint !== fingerprint) {
        this.metrics.idempotencyConflict('body_mismatch');
        throw new DomainError(
          'idempotency_key_reused',
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          { param: 'Idempotency-Key' },
        );
      }
      if (!expired && existing.responseStatus !== null) {
        const stored = existing.responseBody ?? 'null';
        const text = sealer ? sealer.unseal(stored, sealContext(scope, existing.id)) : stored;
        return { kind: 'replay', status: existing.responseStatus, body: JSON.parse(text) as unknown };
      }
      const leaseOver = existing.responseStatus === null && (existing.lockedUntil === null || existing.lockedUntil < now);
      if (expired || leaseOver) {
        const row = { fingerprint, method, path, lockedUntil, expiresAt };
        if (await this.repository.takeOver(scope, existing.id, now, row)) return { kind: 'claimed', id: existing.id };
        continue;
      }
      const waitMs = (existing.lockedUntil?.getTime() ?? now.getTime()) - now.getTime();
      this.metrics.idempotencyConflict('in_flight');
      throw new DomainError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed. Retry later.',
        {
          param: 'Idempotency-Key',
          headers: { 'Retry-After': String(Math.max(1, Math.min(5, Math.ceil(waitMs / 1000)))) },
        },
      );
    }
    this.metrics.idempotencyConflict('in_flight');
    throw new DomainError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is being processed concurrently. Retry later.',
      {
        param: 'Idempotency-Key',
        headers: { 'Retry-After': '1' },
      },
    );
  }

  /** The statement that stores the response (sealed, with a `sealer`: never in clear); RETURNING 1. */
  completion(scope: string, id: string, response: StoredResponse, sealer?: ResponseSealer): Prisma.Sql {
    const text = JSON.stringify(response.body ?? null);
    return this.repository.completion(scope, id, response.status, sealer ? sealer.seal(text, sealContext(scope, id)) : text);
  }

  /** Stores the response on its own, when no transaction of the request stored it. */
  complete(scope: string, id: string, response: StoredResponse, sealer?: ResponseSealer): Promise<void> {
    const text = JSON.stringify(response.body ?? null);
    return this.repository.complete(scope, id, response.status, sealer ? sealer.seal(text, sealContext(scope, id)) : text);
  }

  release(scope: string, id: string): Promise<void> {
    return this.repository.release(scope, id);
  }

  purgeExpired(): Promise<number> {
    return this.repository.purgeExpired(this.clock.now());
  }
}
