import { Module } from '@nestjs/common';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { AgreementsAdminController, OffersAdminController } from './offers-admin.controller';
import { OffersController } from './offers.controller';
import { OffersRepository } from './offers.repository';
import { OffersService } from './offers.service';

@Module({
  imports: [LifecycleModule],
  controllers: [OffersController, OffersAdminController, AgreementsAdminController],
  providers: [OffersRepository, OffersService],
  exports: [OffersService],
})
export class OffersModule {}
