import { Module } from '@nestjs/common';
import { ClientSecretHasher } from './client-secret.hasher';
import { ClientSecretVerifier } from './client-secret.verifier';
import { OAuthMetrics } from './oauth.metrics';
import { SecretGate } from './secret-gate';

/**
 * Everything that runs scrypt on client secrets, behind the process's one SecretGate: the
 * token endpoint's verifier and the client routes' hasher (imported by OAuthModule,
 * ClientsModule and PartnersModule; one instance, so one gate per process).
 */
@Module({
  providers: [SecretGate, ClientSecretVerifier, ClientSecretHasher, OAuthMetrics],
  exports: [SecretGate, ClientSecretVerifier, ClientSecretHasher, OAuthMetrics],
})
export class ClientSecretsModule {}
