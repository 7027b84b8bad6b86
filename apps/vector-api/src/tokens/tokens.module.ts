import { Module } from '@nestjs/common';
import { VectorTokenAuthenticator } from './vector-token.authenticator';
import { VectorTokensAdminController } from './vector-tokens-admin.controller';
import { VectorTokensRepository } from './vector-tokens.repository';
import { VectorTokensService } from './vector-tokens.service';

/** API tokens: the admin routes, and VectorTokenAuthenticator (registered with AuthModule as kind 'vector_token'). */
@Module({
  controllers: [VectorTokensAdminController],
  providers: [VectorTokensRepository, VectorTokensService, VectorTokenAuthenticator],
  exports: [VectorTokenAuthenticator],
})
export class TokensModule {}
