import { Module } from '@nestjs/common';
import { OffersModule } from '../offers/offers.module';
import { AllocationsAdminController, AllocationsController, PartnerAllocationsController } from './allocations.controller';
import { AllocationsRepository } from './allocations.repository';
import { AllocationsService } from './allocations.service';

@Module({
  imports: [OffersModule],
  controllers: [AllocationsController, PartnerAllocationsController, AllocationsAdminController],
  providers: [AllocationsRepository, AllocationsService],
})
export class AllocationsModule {}
