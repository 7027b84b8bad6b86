import { Module } from '@nestjs/common';
import { LiveTables } from './live-tables';
import { TablePartition } from './table-partition';
import { TablesMetrics } from './tables.metrics';
import { TablesController } from './tables.controller';
import { TablesRepository } from './tables.repository';
import { TablesService } from './tables.service';
import { VectorsController } from './vectors.controller';

@Module({
  controllers: [TablesController, VectorsController],
  providers: [TablesRepository, TablesService, LiveTables, TablePartition, TablesMetrics],
})
export class TablesModule {}
