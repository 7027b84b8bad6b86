import { Controller } from '@nestjs/common';
import { consoleLinksAdminController } from '@app/console';
import { PROJECT_CONSOLE_ADMIN } from '../projects/project-console.tenants';

/** POST /admin/v1/console-links: one-time console sign-in links, for the operator to hand to a project (libs/console). */
@Controller('admin/v1/console-links')
export class ConsoleLinksAdminController extends consoleLinksAdminController(PROJECT_CONSOLE_ADMIN) {}
