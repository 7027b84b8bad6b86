import { Module } from '@nestjs/common';
import { OffersModule } from '../offers/offers.module';
import { IndicationsByIdController, IndicationsController } from './indications.controller';
import { IndicationsRepository } from './indications.repository';
import { IndicationsService } from './indications.service';

@Module({
  imports: [OffersModule],
  controllers: [IndicationsController, IndicationsByIdController],
  providers: [IndicationsRepository, IndicationsService],
})
export class IndicationsModule {}
