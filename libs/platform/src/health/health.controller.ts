import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { type CheckState, HealthService, type ReadinessReport } from './health.service';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

export class ReadinessChecksDto {
  @ApiProperty({ enum: ['up', 'down'] }) postgres!: CheckState;
  @ApiProperty({ enum: ['up', 'down'] }) redis!: CheckState;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({ type: ReadinessChecksDto }) checks!: ReadinessChecksDto;
}

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process is up and its event loop answers' })
  @ApiOkResponse({ type: LivenessDto })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: PostgreSQL and Redis answer, and the instance has done the work it needs before taking traffic',
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({
    description:
      'A dependency is down (error.message names it, error.checks has each result), or the instance is still loading its data (error.loading has the progress)',
  })
  ready(): Promise<ReadinessReport> {
    return this.health.ready();
  }
}
