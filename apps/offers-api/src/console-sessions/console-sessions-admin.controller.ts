import { Controller } from '@nestjs/common';
import { consoleSessionsAdminController } from '@app/console';
import { PARTNER_CONSOLE_ADMIN } from '../partners/partner-console.tenants';

/** POST /admin/v1/console-sessions/revoke: the operator ends a partner's console sessions (libs/console). */
@Controller('admin/v1/console-sessions')
export class ConsoleSessionsAdminController extends consoleSessionsAdminController(PARTNER_CONSOLE_ADMIN) {}
