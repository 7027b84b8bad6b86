import { Controller } from '@nestjs/common';
import { consoleSessionsAdminController } from '@app/console';
import { ACCOUNT_CONSOLE_ADMIN } from '../accounts/account-console.tenants';

/** POST /admin/v1/console-sessions/revoke: the operator ends a payments account's console sessions (libs/console). */
@Controller('admin/v1/console-sessions')
export class ConsoleSessionsAdminController extends consoleSessionsAdminController(ACCOUNT_CONSOLE_ADMIN) {}
