import { Module } from '@nestjs/common';
import { ClientSecretsModule } from '../oauth/client-secrets.module';
import { PartnersModule } from '../partners/partners.module';
import { ClientsController } from './clients.controller';
import { ClientsService } from './clients.service';

/** `/api/v1/clients`: partners' self-service OAuth clients (the clients themselves live with the partners). */
@Module({
  imports: [PartnersModule, ClientSecretsModule],
  controllers: [ClientsController],
  providers: [ClientsService],
})
export class ClientsModule {}
