import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RevocationBus } from '@app/auth';
import { TtlCache } from '@app/platform';
import { OffersConfig } from '../config';
import type { Tier } from './partner-tier';
import { PartnersRepository } from './partners.repository';

export interface ClientStatus {
  readonly active: boolean;
  readonly partnerId: string;
  readonly tier: Tier;
  /** Access tokens minted from an older client secret version are refused (a rotation without grace raises it). */
  readonly minTokenSecretVersion: number;
}

/**
 * RevocationBus channel of OAuth client ids whose cached status is stale: disabled (deleted)
 * clients and rotated secrets. (Named when only disabling used it; kept so that instances of
 * the previous release, during a rolling deploy, still hear disablings.)
 */
export const OAUTH_CLIENT_CHANGED = 'auth:oauth-client-disabled';

/**
 * "Is this OAuth client still active, and whose is it?" from a per-instance cache with a
 * short TTL (OAUTH_CLIENT_CACHE_TTL_MS): a disabled client's access tokens, and those of a
 * secret rotated without grace, stop working without a database read on every request.
 * Disabling a client (operator or partner) or rotating its secret evicts it at once on this
 * instance and, through RevocationBus (Redis pub/sub), on the others; if that broadcast is
 * lost, the TTL still bounds how long another instance accepts its tokens.
 */
@Injectable()
export class ClientStatusCache implements OnModuleInit {
  private readonly entries: TtlCache<string, ClientStatus>;

  constructor(
    private readonly repository: PartnersRepository,
    private readonly revocations: RevocationBus,
    config: OffersConfig,
  ) {
    this.entries = new TtlCache(config.OAUTH_CLIENT_CACHE_TTL_MS);
  }

  onModuleInit(): void {
    this.revocations.subscribe(OAUTH_CLIENT_CHANGED, (clientId) => this.entries.delete(clientId));
  }

  async get(clientId: string): Promise<ClientStatus | undefined> {
    const status = await this.entries.getOrLoad(clientId, async (id) => {
      const client = await this.repository.findClient(id);
      return (
        client && {
          active: client.active,
          partnerId: client.partnerId,
          tier: client.tier,
          minTokenSecretVersion: client.minTokenSecretVersion,
        }
      );
    });
    return status ?? undefined;
  }

  /** Call after a client's disabling committed: every instance forgets its cached status (best effort beyond this one). */
  disabled(clientId: string): Promise<void> {
    return this.changed(clientId);
  }

  /** Call after a client's secret rotation committed: every instance re-reads which tokens it accepts. */
  changed(clientId: string): Promise<void> {
    return this.revocations.publish(OAUTH_CLIENT_CHANGED, clientId);
  }
}
