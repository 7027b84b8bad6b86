import { Module } from '@nestjs/common';
import { PartnersModule } from '../partners/partners.module';
import { AccessTokenService } from './access-token.service';
import { ClientSecretsModule } from './client-secrets.module';
import { PartnerAuthenticator } from './partner.authenticator';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

/**
 * OAuth 2.0 for partners: `POST /oauth/token` issues access tokens to their clients, and
 * PartnerAuthenticator (registered with AuthModule as kind 'partner') accepts them.
 */
@Module({
  imports: [PartnersModule, ClientSecretsModule],
  controllers: [TokenController],
  providers: [AccessTokenService, TokenService, PartnerAuthenticator],
  exports: [PartnerAuthenticator],
})
export class OAuthModule {}
