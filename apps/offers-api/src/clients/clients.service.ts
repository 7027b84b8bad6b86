import { Injectable } from '@nestjs/common';
import { hashSecret, newOpaqueSecret } from '@app/auth';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { OffersError } from '../errors';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { ClientStatusCache } from '../partners/client-status.cache';
import { PartnersRepository } from '../partners/partners.repository';
import {
  type OAuthClientCreatedDto,
  type OAuthClientDto,
  type OAuthClientListDto,
  type OAuthClientSecretRotatedDto,
  toOAuthClientCreatedDto,
  toOAuthClientDto,
  toOAuthClientSecretRotatedDto,
} from './dto/client.dto';

/** OAuth clients a partner may hold that work; the operator is not limited (`/admin/v1`). */
export const MAX_CLIENTS_PER_PARTNER = 20;

const HOUR_MS = 3_600_000;

/**
 * A partner manages its own OAuth clients with an access token of any of them (platform
 * contract: Tenants and self-service). Every query is scoped to the caller's partner: another
 * partner's client, and a deleted one, is a 404 like an id that never existed. A secret is
 * returned once (create, rotate); only its scrypt hash is stored.
 */
@Injectable()
export class ClientsService {
  constructor(
    private readonly repository: PartnersRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly clientStatus: ClientStatusCache,
  ) {}

  async list(caller: PartnerPrincipal): Promise<OAuthClientListDto> {
    const now = this.clock.now();
    return { data: (await this.repository.listActiveClients(caller.partnerId)).map((c) => toOAuthClientDto(c, now)) };
  }

  /**
   * The partner's row is locked while its clients are counted, so concurrent creations cannot
   * pass MAX_CLIENTS_PER_PARTNER (the rate limit counts per client: unbounded clients would
   * multiply a partner's share).
   */
  async create(caller: PartnerPrincipal, name: string): Promise<OAuthClientCreatedDto> {
    const secret = newOpaqueSecret('cs_');
    const secretHash = await hashSecret(secret);
    const client = await this.transactions.run(async (tx) => {
      if (!(await this.repository.lockPartner(tx, caller.partnerId))) throw new NotFoundError('partner', caller.partnerId);
      if ((await this.repository.countActiveClients(tx, caller.partnerId)) >= MAX_CLIENTS_PER_PARTNER) {
        throw new OffersError(
          'client_limit_reached',
          `A partner has at most ${MAX_CLIENTS_PER_PARTNER} OAuth clients that work; delete one (DELETE /api/v1/clients/{id}) before creating another.`,
        );
      }
      return this.repository.createClient(tx, newId('client'), caller.partnerId, secretHash, name);
    });
    return toOAuthClientCreatedDto(client, secret);
  }

  /**
   * A new secret that works at once. The replaced one keeps working for `expiresInHours`
   * (0: not at all); one previous secret at most, so rotating again ends an earlier grace at
   * once (docs/decisions.md). Access tokens already issued are not affected: they are the
   * client's, not the secret's, and expire within the hour (delete the client to stop them).
   */
  async rotateSecret(caller: PartnerPrincipal, id: string, expiresInHours = 0): Promise<OAuthClientSecretRotatedDto> {
    const secret = newOpaqueSecret('cs_');
    const secretHash = await hashSecret(secret);
    const now = this.clock.now();
    const previousExpiresAt = expiresInHours > 0 ? new Date(now.getTime() + expiresInHours * HOUR_MS) : null;
    const client = await this.transactions.run((tx) =>
      this.repository.rotateSecret(tx, caller.partnerId, id, secretHash, previousExpiresAt),
    );
    if (!client) throw new NotFoundError('client', id, 'id');
    return toOAuthClientSecretRotatedDto(client, secret, now);
  }

  /**
   * Deletes (disables) a client: its secrets are refused at once, its access tokens at once
   * on every instance that hears the RevocationBus broadcast and within
   * OAUTH_CLIENT_CACHE_TTL_MS on any other. Never the client making the call: it would lock
   * the partner out mid-request if it were its only one.
   */
  async delete(caller: PartnerPrincipal, id: string): Promise<OAuthClientDto> {
    if (id === caller.clientId) {
      throw new OffersError(
        'client_in_use',
        "A client cannot delete itself: delete it with an access token of another of the partner's clients (create one with POST /api/v1/clients).",
        { param: 'id' },
      );
    }
    const now = this.clock.now();
    const client = await this.transactions.run((tx) => this.repository.disableActiveClient(tx, caller.partnerId, id, now));
    if (!client) throw new NotFoundError('client', id, 'id');
    await this.clientStatus.disabled(id);
    return toOAuthClientDto(client, now);
  }
}
