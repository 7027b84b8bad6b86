import { Module } from '@nestjs/common';
import { PartnersModule } from '../partners/partners.module';
import { ClientsController } from './clients.controller';
import { ClientsService } from './clients.service';

/** `/api/v1/clients`: partners' self-service OAuth clients (the clients themselves live with the partners). */
@Module({
  imports: [PartnersModule],
  controllers: [ClientsController],
  providers: [ClientsService],
})
export class ClientsModule {}
