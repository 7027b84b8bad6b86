import { Inject, Injectable, Optional } from '@nestjs/common';
import { Clock, newId, NotFoundError, sha256Hex } from '@app/platform';
import { PartnerAuthenticator } from '../authenticators';
import { RevocationBus } from '../revocation-bus';
import { CredentialsRepository, type PartnerRecord, type VectorTokenRecord } from '../credentials.repository';
import type { Tier } from '../principal';
import { hashSecret, newOpaqueSecret } from '../secrets';
import type {
  ClientCreatedDto,
  ClientDto,
  PartnerDto,
  PaymentAccountCreatedDto,
  VectorTokenCreatedDto,
  VectorTokenDto,
} from './admin.dto';

const partnerDto = (p: PartnerRecord): PartnerDto => ({
  id: p.id,
  name: p.name,
  tier: p.tier,
  created_at: p.createdAt.toISOString(),
});
const tokenDto = (t: VectorTokenRecord): VectorTokenDto => ({
  id: t.id,
  name: t.name,
  created_at: t.createdAt.toISOString(),
  revoked_at: t.revokedAt?.toISOString() ?? null,
});

/** Creating and revoking credentials for the admin API. Secrets are returned once, then only their hashes exist. */
@Injectable()
export class CredentialsAdminService {
  constructor(
    private readonly repository: CredentialsRepository,
    private readonly clock: Clock,
    private readonly partners: PartnerAuthenticator,
    @Optional() @Inject(RevocationBus) private readonly revocations: RevocationBus | null,
  ) {}

  async createPartner(name: string, tier: Tier): Promise<PartnerDto> {
    return partnerDto(await this.repository.createPartner(newId('ptn'), name, tier));
  }

  async getPartner(id: string): Promise<PartnerDto> {
    const partner = await this.repository.findPartner(id);
    if (!partner) throw new NotFoundError('partner', id, 'id');
    return partnerDto(partner);
  }

  async createClient(partnerId: string): Promise<ClientCreatedDto> {
    if (!(await this.repository.findPartner(partnerId))) throw new NotFoundError('partner', partnerId, 'id');
    const secret = newOpaqueSecret('cs_');
    const client = await this.repository.createClient(newId('client'), partnerId, await hashSecret(secret));
    return { client_id: client.id, client_secret: secret, partner_id: partnerId, created_at: client.createdAt.toISOString() };
  }

  async disableClient(partnerId: string, clientId: string): Promise<ClientDto> {
    const client = await this.repository.disableClient(partnerId, clientId, this.clock.now());
    if (!client) throw new NotFoundError('client', clientId, 'client_id');
    this.partners.invalidate(clientId);
    return {
      client_id: client.id,
      partner_id: client.partnerId,
      active: client.active,
      created_at: client.createdAt.toISOString(),
      disabled_at: client.disabledAt?.toISOString() ?? null,
    };
  }

  async createVectorToken(name: string): Promise<VectorTokenCreatedDto> {
    const token = newOpaqueSecret('vt_');
    const row = await this.repository.createVectorToken(newId('tok'), name, sha256Hex(token));
    return { ...tokenDto(row), token };
  }

  async listVectorTokens(): Promise<VectorTokenDto[]> {
    return (await this.repository.listVectorTokens()).map(tokenDto);
  }

  async revokeVectorToken(id: string): Promise<VectorTokenDto> {
    const row = await this.repository.revokeVectorToken(id, this.clock.now());
    if (!row) throw new NotFoundError('token', id, 'id');
    await this.revocations?.publishVectorTokenRevoked(id);
    return tokenDto(row);
  }

  async createPaymentAccount(name: string): Promise<PaymentAccountCreatedDto> {
    const testKey = newOpaqueSecret('sk_test_');
    const liveKey = newOpaqueSecret('sk_live_');
    const account = await this.repository.createPaymentAccount(newId('acct'), name, [
      { id: newId('key'), mode: 'test', keyHash: sha256Hex(testKey) },
      { id: newId('key'), mode: 'live', keyHash: sha256Hex(liveKey) },
    ]);
    return {
      id: account.id,
      name: account.name,
      test_key: testKey,
      live_key: liveKey,
      created_at: account.createdAt.toISOString(),
    };
  }
}
