import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { ClientSecretHasher } from '../oauth/client-secret.hasher';
import { ADMIN_GATE_KEY } from '../oauth/secret-gate';
import { ClientStatusCache } from './client-status.cache';
import {
  type ClientCreatedDto,
  type ClientDto,
  type PartnerDto,
  toClientCreatedDto,
  toClientDto,
  toPartnerDto,
} from './dto/partner.dto';
import type { Tier } from './partner-tier';
import { PartnersRepository } from './partners.repository';

/** Partners and their OAuth clients for the admin API. A client secret is returned once, then only its hash exists. */
@Injectable()
export class PartnersService {
  constructor(
    private readonly repository: PartnersRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly clientStatus: ClientStatusCache,
    private readonly hasher: ClientSecretHasher,
  ) {}

  async createPartner(name: string, tier: Tier): Promise<PartnerDto> {
    const partner = await this.transactions.run((tx) => this.repository.createPartner(tx, newId('ptn'), name, tier));
    return toPartnerDto(partner);
  }

  async getPartner(id: string): Promise<PartnerDto> {
    const partner = await this.repository.findPartner(id);
    if (!partner) throw new NotFoundError('partner', id, 'id');
    return toPartnerDto(partner);
  }

  async createClient(partnerId: string): Promise<ClientCreatedDto> {
    if (!(await this.repository.findPartner(partnerId))) throw new NotFoundError('partner', partnerId, 'id');
    // The hash in a slot of the token endpoint's gate, under the operator's share (issue 31).
    const { secret, hash } = await this.hasher.newSecret(ADMIN_GATE_KEY);
    const client = await this.transactions.run((tx) => this.repository.createClient(tx, newId('client'), partnerId, hash));
    return toClientCreatedDto(client, secret);
  }

  /** New tokens are refused at once; issued tokens at once on every instance that hears the broadcast, within the client-status cache TTL on any other. */
  async disableClient(partnerId: string, clientId: string): Promise<ClientDto> {
    const client = await this.transactions.run((tx) => this.repository.disableClient(tx, partnerId, clientId, this.clock.now()));
    if (!client) throw new NotFoundError('client', clientId, 'client_id');
    await this.clientStatus.disabled(clientId);
    return toClientDto(client);
  }
}
