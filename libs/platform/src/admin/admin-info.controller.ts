import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PlatformConfig, type ServiceRole } from '../config/platform-config';
import { DatabaseInfoRepository } from '../database/database-info.repository';
import { SERVICE_NAME } from '../platform.tokens';
import { AdminOnly } from './admin.guard';

export class AdminInfoDto {
  @ApiProperty({ description: "The service's name" }) service!: string;
  @ApiProperty({ enum: ['api', 'worker', 'all'] }) role!: ServiceRole;
  @ApiProperty({ enum: ['development', 'test', 'production'] }) node_env!: string;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: [String], description: 'Applied migrations, oldest first' }) migrations!: string[];
}

/** `GET /admin/v1/info`: what is running here and which migrations the database has. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/info')
export class AdminInfoController {
  private readonly startedAt = new Date().toISOString();

  constructor(
    @Inject(SERVICE_NAME) private readonly service: string,
    private readonly config: PlatformConfig,
    private readonly database: DatabaseInfoRepository,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Service identity, role and applied migrations' })
  @ApiOkResponse({ type: AdminInfoDto })
  async info(): Promise<AdminInfoDto> {
    return {
      service: this.service,
      role: this.config.ROLE,
      node_env: this.config.NODE_ENV,
      started_at: this.startedAt,
      migrations: await this.database.appliedMigrations(),
    };
  }
}
