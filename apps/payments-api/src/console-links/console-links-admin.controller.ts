import { Controller } from '@nestjs/common';
import { consoleLinksAdminController } from '@app/console';
import { ACCOUNT_CONSOLE_ADMIN } from '../accounts/account-console.tenants';

/** POST /admin/v1/console-links: one-time console sign-in links, for the operator to hand to a payments account (libs/console). */
@Controller('admin/v1/console-links')
export class ConsoleLinksAdminController extends consoleLinksAdminController(ACCOUNT_CONSOLE_ADMIN) {}
