import { Controller } from '@nestjs/common';
import { consoleSessionsAdminController } from '@app/console';
import { PROJECT_CONSOLE_ADMIN } from '../projects/project-console.tenants';

/** POST /admin/v1/console-sessions/revoke: the operator ends a project's console sessions (libs/console). */
@Controller('admin/v1/console-sessions')
export class ConsoleSessionsAdminController extends consoleSessionsAdminController(PROJECT_CONSOLE_ADMIN) {}
