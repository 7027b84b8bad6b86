import { Module } from '@nestjs/common';
import { IDEMPOTENCY_SEALER } from '@app/platform';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AesGcmResponseSealer } from './response-sealer';

/**
 * `/v2/api-keys`: an account's own keys (the key rows live with the accounts). Its answers hold
 * new secrets, so their Idempotency-Key records are sealed (AES-GCM, AesGcmResponseSealer).
 */
@Module({
  imports: [AccountsModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, { provide: IDEMPOTENCY_SEALER, useClass: AesGcmResponseSealer }],
})
export class ApiKeysModule {}
