import { Injectable } from '@nestjs/common';
import type { Authenticator, ConsoleSession } from '@app/auth';
import { PartnersRepository } from '../partners/partners.repository';
import { ClientStatusCache } from '../partners/client-status.cache';
import { AccessTokenService, invalidToken, OAUTH_ISSUER } from './access-token.service';
import { type PartnerPrincipal, partnerPrincipalKey } from './partner.principal';

/**
 * A signed access token, plus "is the client still active, and is the secret that minted the
 * token still allowed to?" from the per-instance client status cache — a disabled client's
 * tokens, and the tokens of a secret rotated without grace, stop working at once on every
 * instance that hears the RevocationBus broadcast and within its TTL on any other, without a
 * database read on every request.
 */
@Injectable()
export class PartnerAuthenticator implements Authenticator<PartnerPrincipal> {
  readonly kind = 'partner';
  readonly realm = OAUTH_ISSUER;
  readonly wants = 'an OAuth 2.0 access token from POST /oauth/token';

  constructor(
    private readonly tokens: AccessTokenService,
    private readonly clients: ClientStatusCache,
    private readonly partners: PartnersRepository,
  ) {}

  async authenticate(credential: string): Promise<PartnerPrincipal> {
    const claims = await this.tokens.verify(credential);
    const status = await this.clients.get(claims.clientId);
    if (!status?.active || status.partnerId !== claims.partnerId) {
      throw invalidToken('The client of this access token is disabled.');
    }
    if (claims.secretVersion < status.minTokenSecretVersion) {
      throw invalidToken('The client secret this access token was issued for has been rotated without a grace period.');
    }
    return {
      kind: 'partner',
      partnerId: status.partnerId,
      clientId: claims.clientId,
      tier: status.tier,
      secretVersion: claims.secretVersion,
    };
  }

  /**
   * A partner dashboard session acts as the partner (clientId: the session's id, which names
   * no OAuth client, so the session may delete any of them); its tier from the partner row.
   */
  async fromConsole(session: ConsoleSession): Promise<PartnerPrincipal> {
    const partner = await this.partners.findPartner(session.tenantId);
    if (!partner) throw invalidToken('The partner of this console session no longer exists.');
    return { kind: 'partner', partnerId: partner.id, clientId: session.id, tier: partner.tier, secretVersion: null };
  }

  keyOf(principal: PartnerPrincipal): string {
    return partnerPrincipalKey(principal);
  }

  /** The partner: its OAuth clients and console sessions share Idempotency-Keys (one mode; platform contract, third round). */
  idempotencyScopeOf(principal: PartnerPrincipal): string {
    return `partner:${principal.partnerId}`;
  }
}
