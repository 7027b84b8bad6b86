/** The smallest service that runs libs/webhooks: the platform plus WebhooksModule, no routes. */
import { PlatformModule, type ServiceDefinition } from '@app/platform';
import { eventKind, WebhooksConfig, WebhooksModule } from '@app/webhooks';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { type DynamicModule, Module } from '@nestjs/common';
import { Expose } from 'class-transformer';

export class BenchConfig extends WebhooksConfig {
  @Expose()
  BENCH_PORT: number = 0;

  get port(): number {
    return this.BENCH_PORT;
  }
}

export const BENCH_EVENT = 'bench.event';
export const BENCH_OWNER_TYPE = 'bench';

class BenchEventData {
  @ApiPropertyOptional() payload?: string;
}
const BENCH_EVENT_KIND = eventKind({ type: BENCH_EVENT, description: 'benchmark', data: BenchEventData, example: () => ({}) });

@Module({})
class WebhooksBenchModule {
  static forRoot(config: BenchConfig): DynamicModule {
    return {
      module: WebhooksBenchModule,
      imports: [
        PlatformModule.forRoot({ service: 'webhooks-bench', config }),
        WebhooksModule.forRoot({ ownerType: BENCH_OWNER_TYPE, events: [BENCH_EVENT_KIND] }),
      ],
    };
  }
}

export const benchService: ServiceDefinition<BenchConfig> = {
  name: 'webhooks-bench',
  configClass: BenchConfig,
  module: (config) => WebhooksBenchModule.forRoot(config),
  openApi: { title: 'webhooks-bench', version: '0', description: 'libs/webhooks benchmark' },
};
