import { Module } from '@nestjs/common';
import { SnapshotsModule } from '../snapshots/snapshots.module';
import { InsertAdmission } from './insert-admission';
import { InsertParsePool } from './insert-body.pipe';
import { LiveTables } from './live-tables';
import { QueryLatency } from './query-latency';
import { TablePartition } from './table-partition';
import { TableSnapshots } from '../snapshots/table-snapshots';
import { TablesMetrics } from './tables.metrics';
import { TablesController } from './tables.controller';
import { TablesRepository } from './tables.repository';
import { TablesService } from './tables.service';
import { TableUsageRepository } from './table-usage.repository';
import { VectorsController } from './vectors.controller';

@Module({
  imports: [SnapshotsModule],
  controllers: [TablesController, VectorsController],
  providers: [
    InsertAdmission,
    InsertParsePool,
    TablesRepository,
    TableUsageRepository,
    TablesService,
    LiveTables,
    TableSnapshots,
    TablePartition,
    TablesMetrics,
    QueryLatency,
  ],
  // The Qdrant-compatible API (compat/qdrant) is an adapter over these.
  exports: [TablesService, InsertAdmission],
})
export class TablesModule {}
