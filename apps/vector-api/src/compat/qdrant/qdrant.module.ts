import { Module } from '@nestjs/common';
import { TablesModule } from '../../tables/tables.module';
import { QdrantController, QdrantFallbackController, QdrantRootController } from './qdrant.controller';
import { QdrantService } from './qdrant.service';

/**
 * The Qdrant-compatible REST API at the root of the service's origin (issue 34,
 * docs/qdrant.md): an adapter over the tables' services, not a second engine.
 */
@Module({
  imports: [TablesModule],
  controllers: [QdrantRootController, QdrantController, QdrantFallbackController],
  providers: [QdrantService],
})
export class QdrantModule {}
