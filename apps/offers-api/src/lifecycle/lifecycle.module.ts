import { Module } from '@nestjs/common';
import { LifecycleMetrics } from './lifecycle.metrics';
import { LifecycleRepository } from './lifecycle.repository';
import { LifecycleService } from './lifecycle.service';
import { LifecycleWorker } from './lifecycle.worker';

/** Offer lifecycle on BullMQ: delayed transition jobs, a repeatable repair sweep. */
@Module({
  providers: [LifecycleRepository, LifecycleService, LifecycleWorker, LifecycleMetrics],
  exports: [LifecycleService],
})
export class LifecycleModule {}
