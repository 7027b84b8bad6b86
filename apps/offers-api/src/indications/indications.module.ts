import { Module } from '@nestjs/common';
import { OffersModule } from '../offers/offers.module';
import { TermsModule } from '../terms/terms.module';
import { IndicationsController } from './indications.controller';
import { IndicationsRepository } from './indications.repository';
import { IndicationsService } from './indications.service';

@Module({
  imports: [OffersModule, TermsModule],
  controllers: [IndicationsController],
  providers: [IndicationsRepository, IndicationsService],
})
export class IndicationsModule {}
