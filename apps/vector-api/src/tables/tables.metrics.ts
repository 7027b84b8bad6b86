import { MetricsService } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { LiveTables } from './live-tables';

/**
 * `vector_tables_held`: the tables this instance holds in memory, read at scrape time. With
 * `VECTOR_PARTITION` only its partition's (docs/scaling.md); every instance of one group
 * shows the same number once synced.
 */
@Injectable()
export class TablesMetrics {
  constructor(metrics: MetricsService, live: LiveTables) {
    new Gauge({
      name: 'vector_tables_held',
      help: 'Tables this instance holds in memory (with VECTOR_PARTITION: only its partition)',
      registers: [metrics.registry],
      collect() {
        this.set(live.all().length);
      },
    });
  }
}
