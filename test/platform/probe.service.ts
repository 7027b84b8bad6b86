/**
 * A tiny service built from the platform's own parts, with routes that exercise
 * validation, domain errors and unexpected errors. Used by the platform's e2e tests only.
 */
import { DomainError, PlatformConfig, PlatformModule, type ServiceDefinition } from '@app/platform';
import { Body, Controller, Get, type DynamicModule, Module, Post, Query } from '@nestjs/common';
import { Expose, Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

class ProbeConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  PROBE_PORT: number = 3999;

  get port(): number {
    return this.PROBE_PORT;
  }
}

class Line {
  @IsInt()
  @Min(1)
  quantity!: number;
}

class EchoDto {
  @IsString()
  @MaxLength(20)
  name!: string;

  @IsInt()
  @Min(1)
  amount!: number;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Line)
  lines?: Line[];
}

class ListQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

@Controller('probe')
class ProbeController {
  @Post('echo')
  echo(@Body() body: EchoDto): EchoDto {
    return body;
  }

  @Get('items')
  items(@Query() query: ListQuery): { limit: number } {
    return { limit: query.limit ?? 20 };
  }

  @Get('boom')
  boom(): never {
    throw new Error('connection string postgres://user:hunter2@db/internal exploded');
  }

  @Get('missing')
  missing(): never {
    throw new DomainError('resource_missing', "No such offer: 'offer_x'", { param: 'id' });
  }
}

@Module({})
class ProbeModule {
  static forRoot(config: ProbeConfig): DynamicModule {
    return {
      module: ProbeModule,
      imports: [PlatformModule.forRoot({ service: 'probe-api', config })],
      controllers: [ProbeController],
    };
  }
}

export const probeService: ServiceDefinition<ProbeConfig> = {
  name: 'probe-api',
  configClass: ProbeConfig,
  module: (config) => ProbeModule.forRoot(config),
  openApi: { title: 'probe', version: '0', description: 'test probe' },
};
