import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisService } from '@app/platform';
import { VectorTokenAuthenticator } from './authenticators';

const CHANNEL = 'auth:vector-token-revoked';

/**
 * Tells every instance of the service that a token was revoked, so their key caches drop
 * it at once (Redis pub/sub). If Redis is unreachable the cache TTL (1 s) still bounds how
 * long another instance can accept a revoked token.
 */
@Injectable()
export class RevocationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RevocationBus');
  private subscriber: Redis | undefined;

  constructor(
    private readonly redis: RedisService,
    private readonly vectorTokens: VectorTokenAuthenticator,
  ) {}

  onModuleInit(): void {
    const subscriber = this.redis.commands.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    subscriber.on('error', () => undefined); // RedisService already reports connection problems
    subscriber.on('message', (_channel: string, tokenId: string) => this.vectorTokens.revoked(tokenId));
    subscriber
      .subscribe(CHANNEL)
      .catch((err: unknown) => this.logger.warn(`cannot subscribe to revocations: ${(err as Error).message}`));
    this.subscriber = subscriber;
  }

  /** Revoked on this instance already; tell the others (best effort). */
  async publishVectorTokenRevoked(tokenId: string): Promise<void> {
    this.vectorTokens.revoked(tokenId);
    await this.redis.commands.publish(CHANNEL, tokenId).catch((err: unknown) => {
      this.logger.warn(`could not broadcast the revocation of ${tokenId}: ${(err as Error).message}`);
    });
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }
}
