import { Injectable } from '@nestjs/common';
import { apiKeyHash, newOpaqueSecret, RevocationBus } from '@app/auth';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { toVectorTokenDto, type VectorTokenCreatedDto, type VectorTokenDto } from './dto/vector-token.dto';
import { VECTOR_TOKEN_REVOKED } from './vector-token.authenticator';
import { VectorTokensRepository } from './vector-tokens.repository';

/** API tokens for the admin API. A token is returned once, then only its hash exists. */
@Injectable()
export class VectorTokensService {
  constructor(
    private readonly repository: VectorTokensRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly revocations: RevocationBus,
  ) {}

  async create(name: string): Promise<VectorTokenCreatedDto> {
    const token = newOpaqueSecret('vt_');
    const row = await this.transactions.run((tx) => this.repository.create(tx, newId('tok'), name, apiKeyHash(token)));
    return { ...toVectorTokenDto(row), token };
  }

  async list(): Promise<VectorTokenDto[]> {
    return (await this.repository.list()).map(toVectorTokenDto);
  }

  /** Effective at once on this instance, and on the others as soon as they hear of it (RevocationBus). */
  async revoke(id: string): Promise<VectorTokenDto> {
    const row = await this.transactions.run((tx) => this.repository.revoke(tx, id, this.clock.now()));
    if (!row) throw new NotFoundError('token', id, 'id');
    await this.revocations.publish(VECTOR_TOKEN_REVOKED, id);
    return toVectorTokenDto(row);
  }
}
