import { Injectable } from '@nestjs/common';
import { OffersConfig } from '../config';
import type { Tier } from './partner-tier';
import { PartnersRepository } from './partners.repository';

export interface ClientStatus {
  readonly active: boolean;
  readonly partnerId: string;
  readonly tier: Tier;
}

/**
 * "Is this OAuth client still active, and whose is it?" from a per-instance cache with a
 * short TTL (OAUTH_CLIENT_CACHE_TTL_MS): a disabled client's access tokens stop working
 * within that TTL on every instance, without a database read on every request. Disabling a
 * client on this instance evicts it at once.
 */
@Injectable()
export class ClientStatusCache {
  private readonly entries = new Map<string, ClientStatus & { readonly expires: number }>();
  private readonly ttlMs: number;

  constructor(
    private readonly repository: PartnersRepository,
    config: OffersConfig,
  ) {
    this.ttlMs = config.OAUTH_CLIENT_CACHE_TTL_MS;
  }

  async get(clientId: string): Promise<ClientStatus | undefined> {
    const now = Date.now();
    const cached = this.entries.get(clientId);
    if (cached && cached.expires > now) return cached;
    const client = await this.repository.findClient(clientId);
    if (!client) {
      this.entries.delete(clientId);
      return undefined;
    }
    const status = { active: client.active, partnerId: client.partnerId, tier: client.tier, expires: now + this.ttlMs };
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(clientId, status);
    return status;
  }

  /** Forgets a client's cached status (called when this instance disables it). */
  invalidate(clientId: string): void {
    this.entries.delete(clientId);
  }
}
