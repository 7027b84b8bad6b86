import { type DynamicModule, Module, type ModuleMetadata, type Type } from '@nestjs/common';
import { ConsoleController } from './console/console.controller';
import { ConsoleLinks } from './console/console-links';
import { CONSOLE_TENANTS, type ConsoleTenants } from './console-tenants';

export interface ConsoleModuleOptions {
  /** The app's tenants as the console shows them; its dependencies come from `imports`. */
  readonly tenants: Type<ConsoleTenants>;
  readonly imports?: ModuleMetadata['imports'];
  /** The app's own controllers that need ConsoleLinks (its POST /admin/v1/console-links). */
  readonly controllers?: ModuleMetadata['controllers'];
}

/**
 * The console of one service: its pages and session routes at /console, and ConsoleLinks
 * for the app's own `POST /admin/v1/console-links` (the body names the app's tenant).
 * Needs AuthModule (ConsoleSessions) and PlatformModule.
 */
@Module({})
export class ConsoleModule {
  static forRoot(options: ConsoleModuleOptions): DynamicModule {
    return {
      module: ConsoleModule,
      imports: options.imports ?? [],
      controllers: [ConsoleController, ...(options.controllers ?? [])],
      providers: [options.tenants, { provide: CONSOLE_TENANTS, useExisting: options.tenants }, ConsoleLinks],
      exports: [ConsoleLinks, CONSOLE_TENANTS],
    };
  }
}
