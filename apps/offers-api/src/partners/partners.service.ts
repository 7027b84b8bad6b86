import { Injectable } from '@nestjs/common';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { ClientSecretHasher } from '../oauth/client-secret.hasher';
import { ADMIN_GATE_KEY } from '../oauth/secret-gate';
import { ClientStatusCache } from './client-status.cache';
import { OffersError } from '../errors';
import {
  type ClientCreatedDto,
  type ClientDto,
  type PartnerDto,
  type PartnerListDto,
  type PartnerListQueryDto,
  toClientCreatedDto,
  toClientDto,
  toPartnerDto,
  toPartnerListItemDto,
} from './dto/partner.dto';
import type { Tier } from './partner-tier';
import { type PartnerRecord, PartnersRepository } from './partners.repository';

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

  /**
   * The operator's list: newest first, `starting_after` any partner's id (an unknown one is a
   * 400 resource_missing, as every list answers a cursor that names nothing), each partner
   * with its counts (docs/operations.md's pointer, docs/decisions.md 389–398).
   */
  async listPartners(query: PartnerListQueryDto): Promise<PartnerListDto> {
    let after: PartnerRecord | undefined;
    if (query.starting_after !== undefined) {
      after = (await this.repository.findPartner(query.starting_after)) ?? undefined;
      if (after === undefined) {
        throw new OffersError('resource_missing', `No such partner: '${query.starting_after}'`, {
          param: 'starting_after',
          status: 400,
        });
      }
    }
    const rows = await this.repository.adminPage({
      take: query.limit + 1,
      ...(after === undefined ? {} : { after }),
      ...(query.name_prefix === undefined ? {} : { namePrefix: query.name_prefix }),
    });
    return { object: 'list', data: rows.slice(0, query.limit).map(toPartnerListItemDto), has_more: rows.length > query.limit };
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
