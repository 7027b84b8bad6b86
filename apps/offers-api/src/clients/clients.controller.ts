import { Authenticated, CurrentPrincipal } from '@app/auth';
import { ApiErrors } from '@app/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { ClientsService } from './clients.service';
import {
  OAuthClientCreatedDto,
  OAuthClientCreateDto,
  OAuthClientDto,
  OAuthClientListDto,
  OAuthClientRotateSecretDto,
  OAuthClientSecretRotatedDto,
} from './dto/client.dto';

const NO_CLIENT = { code: 'resource_missing', when: 'no such client of the partner (or a deleted one)' } as const;
const IN_GRACE = {
  code: 'credential_in_grace',
  when: 'the access token was issued for a client secret that has since been rotated',
} as const;
/** The hash of the new secret waits for a slot of the token endpoint's gate. */
const HASH_BUSY = [
  { code: 'rate_limit_exceeded', when: "the partner's share of the secret hashing slots is taken (Retry-After)" },
  { code: 'service_unavailable', when: "the instance's secret hashing queue is full or its wait timed out (Retry-After)" },
] as const;

/** `/api/v1/clients`: a partner manages its own OAuth clients with an access token of any of them. */
@ApiTags('clients')
@Authenticated('partner')
@Controller('api/v1/clients')
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Get()
  @ApiOperation({ summary: "The partner's OAuth clients that work, oldest first (never a secret)" })
  @ApiOkResponse({ type: OAuthClientListDto })
  list(@CurrentPrincipal() caller: PartnerPrincipal): Promise<OAuthClientListDto> {
    return this.clients.list(caller);
  }

  @Post()
  @ApiOperation({ summary: 'Create an OAuth client of the partner; the secret is shown once' })
  @ApiCreatedResponse({ type: OAuthClientCreatedDto })
  @ApiErrors({ code: 'client_limit_reached', when: 'the partner has 20 clients that work' }, IN_GRACE, ...HASH_BUSY)
  create(@CurrentPrincipal() caller: PartnerPrincipal, @Body() body: OAuthClientCreateDto): Promise<OAuthClientCreatedDto> {
    return this.clients.create(caller, body.name);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Replace the client secret; the new one works at once, the old one until expires_in_hours (default 0: at once, and the old secret's access tokens stop too)",
  })
  @ApiOkResponse({ type: OAuthClientSecretRotatedDto })
  @ApiErrors(NO_CLIENT, IN_GRACE, ...HASH_BUSY)
  rotateSecret(
    @CurrentPrincipal() caller: PartnerPrincipal,
    @Param('id') id: string,
    @Body() body: OAuthClientRotateSecretDto,
  ): Promise<OAuthClientSecretRotatedDto> {
    return this.clients.rotateSecret(caller, id, body.expires_in_hours);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    summary: "Delete a client: its secret stops at once, its access tokens within seconds (not the caller's own client)",
  })
  @ApiOkResponse({ type: OAuthClientDto })
  @ApiErrors(NO_CLIENT, { code: 'client_in_use', when: 'the client whose access token makes the call' }, IN_GRACE)
  delete(@CurrentPrincipal() caller: PartnerPrincipal, @Param('id') id: string): Promise<OAuthClientDto> {
    return this.clients.delete(caller, id);
  }
}
