import { Module } from '@nestjs/common';
import { VectorTokenAuthenticator } from './vector-token.authenticator';
import { VectorTokensAdminController } from './vector-tokens-admin.controller';
import { VectorTokensController } from './vector-tokens.controller';
import { VectorTokensRepository } from './vector-tokens.repository';
import { VectorTokensService } from './vector-tokens.service';

/**
 * API tokens: the admin routes, a project's own `/v1/tokens`, and VectorTokenAuthenticator
 * (registered with AuthModule as kind 'vector_token').
 */
@Module({
  controllers: [VectorTokensAdminController, VectorTokensController],
  providers: [VectorTokensRepository, VectorTokensService, VectorTokenAuthenticator],
  exports: [VectorTokenAuthenticator, VectorTokensService],
})
export class TokensModule {}
