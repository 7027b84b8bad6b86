import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { OffersError } from '../errors';
import { invalidToken } from '../oauth/access-token.service';
import { ClientSecretHasher } from '../oauth/client-secret.hasher';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { partnerGateKey } from '../oauth/secret-gate';
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
 *
 * Cheap checks first (issue 31): the caller's credential (an access token of a rotated secret
 * cannot manage credentials: 403 credential_in_grace), then ownership and limits, and only then
 * the scrypt hash of a new secret, in a slot of the token endpoint's gate (ClientSecretHasher).
 */
@Injectable()
export class ClientsService {
  constructor(
    private readonly repository: PartnersRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly clientStatus: ClientStatusCache,
    private readonly hasher: ClientSecretHasher,
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
    await this.assertMayManageCredentials(caller);
    // The limit before the hash (unlocked, so a race can still pass it: the locked count below decides).
    if ((await this.repository.countActiveClientsNow(caller.partnerId)) >= MAX_CLIENTS_PER_PARTNER) throw clientLimitReached();
    const { secret, hash } = await this.hasher.newSecret(partnerGateKey(caller.partnerId));
    const client = await this.transactions.run(async (tx) => {
      if (!(await this.repository.lockPartner(tx, caller.partnerId))) throw new NotFoundError('partner', caller.partnerId);
      if ((await this.repository.countActiveClients(tx, caller.partnerId)) >= MAX_CLIENTS_PER_PARTNER) throw clientLimitReached();
      return this.repository.createClient(tx, newId('client'), caller.partnerId, hash, name);
    });
    return toOAuthClientCreatedDto(client, secret);
  }

  /**
   * A new secret that works at once. The replaced one keeps working for `expiresInHours`
   * (0: not at all); one previous secret at most, so rotating again ends an earlier grace at
   * once (docs/decisions.md). Without grace (the remedy for a leak) the access tokens minted
   * from every older secret stop at once too, on every instance; with grace, the replaced
   * secret's tokens keep working until they expire, but cannot manage credentials.
   */
  async rotateSecret(caller: PartnerPrincipal, id: string, expiresInHours = 0): Promise<OAuthClientSecretRotatedDto> {
    await this.assertMayManageCredentials(caller);
    if (!(await this.repository.findActiveClientOf(caller.partnerId, id))) throw new NotFoundError('client', id, 'id');
    const { secret, hash } = await this.hasher.newSecret(partnerGateKey(caller.partnerId));
    const now = this.clock.now();
    const previousExpiresAt = expiresInHours > 0 ? new Date(now.getTime() + expiresInHours * HOUR_MS) : null;
    const client = await this.transactions.run((tx) =>
      this.repository.rotateSecret(tx, caller.partnerId, id, hash, previousExpiresAt),
    );
    if (!client) throw new NotFoundError('client', id, 'id');
    await this.clientStatus.changed(id);
    return toOAuthClientSecretRotatedDto(client, secret, now);
  }

  /**
   * Deletes (disables) a client: its secrets are refused at once, its access tokens at once
   * on every instance that hears the RevocationBus broadcast and within
   * OAUTH_CLIENT_CACHE_TTL_MS on any other. Never the client making the call: it would lock
   * the partner out mid-request if it were its only one.
   */
  async delete(caller: PartnerPrincipal, id: string): Promise<OAuthClientDto> {
    await this.assertMayManageCredentials(caller);
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

  /**
   * Platform contract, third round: a credential in its grace period, and an access token
   * minted from a secret that has since been rotated, cannot create, rotate or delete
   * credentials (403 credential_in_grace). Read from the database, not the status cache: a
   * rotation on another instance counts at once. A dashboard session (no secret) may.
   */
  private async assertMayManageCredentials(caller: PartnerPrincipal): Promise<void> {
    if (caller.secretVersion === null) return;
    const own = await this.repository.findActiveClientOf(caller.partnerId, caller.clientId);
    if (!own) throw invalidToken('The client of this access token is disabled.');
    if (caller.secretVersion !== own.secretVersion) {
      throw new OffersError(
        'credential_in_grace',
        "This access token was issued for a client secret that has since been rotated: it cannot create, rotate or delete OAuth clients. Request a token with the client's newest secret (the one the rotation returned).",
      );
    }
  }
}

function clientLimitReached(): OffersError {
  return new OffersError(
    'client_limit_reached',
    `A partner has at most ${MAX_CLIENTS_PER_PARTNER} OAuth clients that work; delete one (DELETE /api/v1/clients/{id}) before creating another.`,
  );
}
