import { Controller } from '@nestjs/common';
import { consoleLinksAdminController } from '@app/console';
import { PARTNER_CONSOLE_ADMIN } from '../partners/partner-console.tenants';

/** POST /admin/v1/console-links: one-time console sign-in links, for the operator to hand to a partner (libs/console). */
@Controller('admin/v1/console-links')
export class ConsoleLinksAdminController extends consoleLinksAdminController(PARTNER_CONSOLE_ADMIN) {}
