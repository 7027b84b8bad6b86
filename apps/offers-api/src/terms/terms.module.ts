import { Module } from '@nestjs/common';
import { TermsAdminController, TermsController } from './terms.controller';
import { TermsRepository } from './terms.repository';
import { TermsService } from './terms.service';

@Module({
  controllers: [TermsController, TermsAdminController],
  providers: [TermsRepository, TermsService],
})
export class TermsModule {}
