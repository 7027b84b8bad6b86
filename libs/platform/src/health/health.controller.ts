import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthService, type ReadinessReport } from './health.service';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process is up and its event loop answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer' })
  @ApiOkResponse({ schema: { example: { status: 'ok', checks: { postgres: 'up', redis: 'up' } } } })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down; error.message names it, error.checks has each result' })
  ready(): Promise<ReadinessReport> {
    return this.health.ready();
  }
}
