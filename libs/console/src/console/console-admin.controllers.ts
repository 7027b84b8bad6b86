import { Body, HttpCode, Post, type Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { AdminOnly, ApiErrors } from '@app/platform';
import type { ConsoleTenants } from '../console-tenants';
import { ConsoleLinks } from './console-links';
import { ConsoleLinkDto, ConsoleLinkTtlDto, ConsoleSessionsRevokedDto } from './console.dto';

/** How an app's admin routes name its tenant: the body's field, the docs' noun and an example id. */
export interface ConsoleAdminTenant {
  /** The body's field (the app's ConsoleTenants.idField). */
  readonly idField: ConsoleTenants['idField'];
  /** The tenant in the OpenAPI summaries and errors, e.g. 'partner'. */
  readonly noun: string;
  /** An example id for the OpenAPI document. */
  readonly example: string;
}

/** Declares the tenant's id field on a body class, as `@ApiProperty @IsString @Length(1, 100) <idField>!: string` would. */
function tenantIdField(body: Type<unknown>, tenant: ConsoleAdminTenant): void {
  for (const decorate of [ApiProperty({ type: String, example: tenant.example }), IsString(), Length(1, 100)]) {
    decorate(body.prototype as object, tenant.idField);
  }
}

const tenantIdOf = (body: object, tenant: ConsoleAdminTenant): string => (body as Record<string, string>)[tenant.idField];

/**
 * The route of `POST /admin/v1/console-links`: one-time console sign-in links, for the operator
 * to hand to a tenant. Each app mounts it in its `console-links/` folder (route-folder rule) as
 * `@Controller('admin/v1/console-links') class ConsoleLinksAdminController extends consoleLinksAdminController(…) {}`
 * (the OpenAPI operation id comes from that class's name).
 */
export function consoleLinksAdminController(tenant: ConsoleAdminTenant): Type<object> {
  /** The body of POST /admin/v1/console-links: the tenant to sign in as. */
  class CreateConsoleLinkDto extends ConsoleLinkTtlDto {}
  tenantIdField(CreateConsoleLinkDto, tenant);

  @ApiTags('admin')
  @AdminOnly()
  class ConsoleLinksAdminController {
    constructor(private readonly links: ConsoleLinks) {}

    @Post()
    @ApiOperation({ summary: `A one-time sign-in link to the console as this ${tenant.noun} (usable once, within ttl_seconds)` })
    @ApiCreatedResponse({ type: ConsoleLinkDto })
    @ApiErrors({ code: 'resource_missing', status: 400, when: `no such ${tenant.noun}` })
    create(@Body() body: CreateConsoleLinkDto): Promise<ConsoleLinkDto> {
      return this.links.issue(tenantIdOf(body, tenant), body.ttl_seconds);
    }
  }
  return ConsoleLinksAdminController;
}

/**
 * The route of `POST /admin/v1/console-sessions/revoke`: the operator ends a tenant's console
 * sessions (sign-out ends one; this ends them all). Each app mounts it in its `console-sessions/`
 * folder as `@Controller('admin/v1/console-sessions') class ConsoleSessionsAdminController extends consoleSessionsAdminController(…) {}`.
 */
export function consoleSessionsAdminController(tenant: ConsoleAdminTenant): Type<object> {
  /** The body of POST /admin/v1/console-sessions/revoke. */
  class RevokeConsoleSessionsDto {}
  tenantIdField(RevokeConsoleSessionsDto, tenant);

  @ApiTags('admin')
  @AdminOnly()
  class ConsoleSessionsAdminController {
    constructor(private readonly links: ConsoleLinks) {}

    @Post('revoke')
    @HttpCode(200)
    @ApiOperation({ summary: `End every console session of this ${tenant.noun} at once (their next request is 401)` })
    @ApiOkResponse({ type: ConsoleSessionsRevokedDto })
    @ApiErrors({ code: 'resource_missing', status: 400, when: `no such ${tenant.noun}` })
    revoke(@Body() body: RevokeConsoleSessionsDto): Promise<ConsoleSessionsRevokedDto> {
      return this.links.revokeSessions(tenantIdOf(body, tenant));
    }
  }
  return ConsoleSessionsAdminController;
}
