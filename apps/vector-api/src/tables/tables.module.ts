import { Module } from '@nestjs/common';
import { LiveTables } from './live-tables';
import { TablesController } from './tables.controller';
import { TablesRepository } from './tables.repository';
import { TablesService } from './tables.service';
import { VectorsController } from './vectors.controller';

@Module({
  controllers: [TablesController, VectorsController],
  providers: [TablesRepository, TablesService, LiveTables],
})
export class TablesModule {}
