// libs/console: the web console each service serves at /console (the built front end of
// apps/console) and its session routes; apps give it their tenants and mount the admin
// route that issues sign-in links. Apps import only from here ('@app/console').
export * from './console.module';
export * from './console-tenants';
export { ConsoleLinks } from './console/console-links';
export {
  type ConsoleAdminTenant,
  consoleLinksAdminController,
  consoleSessionsAdminController,
} from './console/console-admin.controllers';
export { ConsoleLinkDto, ConsoleLinkTtlDto, ConsoleSessionsRevokedDto } from './console/console.dto';
export { CONSOLE_SECURITY_HEADERS } from './console/console-assets';
