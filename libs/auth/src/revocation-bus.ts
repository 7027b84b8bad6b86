import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type RedisClient, RedisService } from '@app/platform';

type RevocationHandler = (credentialId: string) => void;

/**
 * Tells every instance of an app that a credential was revoked, so their key caches drop it
 * at once (Redis pub/sub, one channel per credential kind, named by the app). If Redis is
 * unreachable the cache TTL still bounds how long another instance can accept a revoked
 * credential. The subscriber connection is opened on the first `subscribe`.
 */
@Injectable()
export class RevocationBus implements OnApplicationShutdown {
  private readonly logger = new Logger('RevocationBus');
  private readonly handlers = new Map<string, RevocationHandler[]>();
  private subscriber: RedisClient | undefined;

  constructor(private readonly redis: RedisService) {}

  /** Calls `onRevoked(credentialId)` for every revocation published on `channel`, by any instance (this one included). */
  subscribe(channel: string, onRevoked: RevocationHandler): void {
    const existing = this.handlers.get(channel);
    if (existing) {
      existing.push(onRevoked);
      return;
    }
    this.handlers.set(channel, [onRevoked]);
    this.connection()
      .subscribe(channel)
      .catch((err: unknown) => this.logger.warn(`cannot subscribe to revocations: ${(err as Error).message}`));
  }

  /** Revokes on this instance at once, then tells the others (best effort). */
  async publish(channel: string, credentialId: string): Promise<void> {
    this.deliver(channel, credentialId);
    await this.redis.commands.publish(channel, credentialId).catch((err: unknown) => {
      this.logger.warn(`could not broadcast the revocation of ${credentialId}: ${(err as Error).message}`);
    });
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }

  private connection(): RedisClient {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.connect();
    subscriber.on('error', () => undefined); // RedisService already reports connection problems
    subscriber.on('message', (channel: string, credentialId: string) => this.deliver(channel, credentialId));
    this.subscriber = subscriber;
    return subscriber;
  }

  private deliver(channel: string, credentialId: string): void {
    for (const handler of this.handlers.get(channel) ?? []) handler(credentialId);
  }
}
