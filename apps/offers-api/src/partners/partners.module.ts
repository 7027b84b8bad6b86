import { Module } from '@nestjs/common';
import { ClientSecretsModule } from '../oauth/client-secrets.module';
import { ClientStatusCache } from './client-status.cache';
import { PartnersAdminController } from './partners-admin.controller';
import { PartnersRepository } from './partners.repository';
import { PartnersService } from './partners.service';

/** Partners and their OAuth clients: the admin routes, and the client lookups OAuth needs. */
@Module({
  imports: [ClientSecretsModule],
  controllers: [PartnersAdminController],
  providers: [PartnersRepository, PartnersService, ClientStatusCache],
  exports: [PartnersRepository, ClientStatusCache],
})
export class PartnersModule {}
