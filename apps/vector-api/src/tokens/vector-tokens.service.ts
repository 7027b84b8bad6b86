import { Injectable } from '@nestjs/common';
import { apiKeyHash, newOpaqueSecret, RevocationBus } from '@app/auth';
import { Clock, newId, NotFoundError, TransactionRunner } from '@app/platform';
import { VectorError } from '../errors';
import { toVectorTokenDto, type VectorTokenCreatedDto, type VectorTokenDto } from './dto/vector-token.dto';
import { VECTOR_TOKEN_REVOKED } from './vector-token.authenticator';
import type { VectorTokenPrincipal } from './vector-token.principal';
import { VectorTokensRepository } from './vector-tokens.repository';

/** Tokens of one project that may work at once. */
export const MAX_TOKENS_PER_PROJECT = 100;

/**
 * API tokens of projects, for the admin API and for the projects themselves (`/v1/tokens`).
 * A token is returned once, then only its hash and last 4 characters exist.
 */
@Injectable()
export class VectorTokensService {
  constructor(
    private readonly repository: VectorTokensRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly revocations: RevocationBus,
  ) {}

  /**
   * A new token of the project (which the caller has checked exists). A project creating its
   * own (`limited`) may hold at most MAX_TOKENS_PER_PROJECT that work: the rate limit counts
   * per token, so unbounded self-service tokens would multiply a project's share. The
   * operator is not limited.
   */
  async create(projectId: string, name: string, limited = false): Promise<VectorTokenCreatedDto> {
    const token = newOpaqueSecret('vt_');
    const row = await this.transactions.run(async (tx) => {
      // Counted under the project's lock: concurrent creates at 99 cannot both see room.
      if (limited) await this.repository.lockProject(tx, projectId);
      if (limited && (await this.repository.countActive(tx, projectId)) >= MAX_TOKENS_PER_PROJECT) {
        throw new VectorError(
          'token_limit_reached',
          `A project has at most ${MAX_TOKENS_PER_PROJECT} tokens that work; revoke one (DELETE /v1/tokens/{id}) before creating another.`,
        );
      }
      return this.repository.create(tx, {
        id: newId('tok'),
        projectId,
        name,
        tokenHash: apiKeyHash(token),
        last4: token.slice(-4),
      });
    });
    return { ...toVectorTokenDto(row), token };
  }

  /** Every token of the deployment, revoked ones too (admin). */
  async listAll(): Promise<VectorTokenDto[]> {
    return (await this.repository.listAll()).map(toVectorTokenDto);
  }

  /** The tokens of the caller's project that still work. */
  async listOwn(caller: VectorTokenPrincipal): Promise<VectorTokenDto[]> {
    return (await this.repository.listActive(caller.projectId)).map(toVectorTokenDto);
  }

  /** Admin: any project's token. Effective at once here, and on the other instances as soon as they hear of it. */
  revoke(id: string): Promise<VectorTokenDto> {
    return this.revokeScoped(id);
  }

  /** A project revokes one of its tokens; never the one making the call (it would lock itself out mid-request). */
  revokeOwn(caller: VectorTokenPrincipal, id: string): Promise<VectorTokenDto> {
    if (id === caller.tokenId) {
      throw new VectorError(
        'token_in_use',
        'A token cannot revoke itself: revoke it with another token of the project (create one with POST /v1/tokens).',
        { param: 'id' },
      );
    }
    return this.revokeScoped(id, caller.projectId);
  }

  private async revokeScoped(id: string, projectId?: string): Promise<VectorTokenDto> {
    const row = await this.transactions.run((tx) => this.repository.revoke(tx, id, this.clock.now(), projectId));
    if (!row) throw new NotFoundError('token', id, 'id');
    await this.revocations.publish(VECTOR_TOKEN_REVOKED, id);
    return toVectorTokenDto(row);
  }
}
