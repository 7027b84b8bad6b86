import { renderErrorsUnder } from '@app/platform';
import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { TablesModule } from '../../tables/tables.module';
import { qdrantRouteError } from './qdrant-error';
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
export class QdrantModule implements OnModuleInit {
  constructor(private readonly adapter: HttpAdapterHost) {}

  /** Requests under /collections no route took (a malformed URL, `PUT /collections/`) answer in Qdrant's body too. */
  onModuleInit(): void {
    renderErrorsUnder(this.adapter.httpAdapter.getInstance<object>(), '/collections', qdrantRouteError);
  }
}
