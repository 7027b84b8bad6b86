import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '@app/platform';
import {
  ClientCreatedDto,
  ClientDto,
  NameDto,
  PartnerCreateDto,
  PartnerDto,
  PaymentAccountCreatedDto,
  VectorTokenCreatedDto,
  VectorTokenDto,
  VectorTokenListDto,
} from './admin.dto';
import { CredentialsAdminService } from './credentials-admin.service';

/** offers-api: partners and their OAuth clients. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/partners')
export class PartnersAdminController {
  constructor(private readonly admin: CredentialsAdminService) {}

  @Post()
  @ApiOperation({ summary: 'Create a partner' })
  @ApiCreatedResponse({ type: PartnerDto })
  create(@Body() body: PartnerCreateDto): Promise<PartnerDto> {
    return this.admin.createPartner(body.name, body.tier);
  }

  @Get(':id')
  @ApiOkResponse({ type: PartnerDto })
  @ApiNotFoundResponse()
  get(@Param('id') id: string): Promise<PartnerDto> {
    return this.admin.getPartner(id);
  }

  @Post(':id/clients')
  @ApiOperation({ summary: 'Create an OAuth client for the partner; the secret is shown once' })
  @ApiCreatedResponse({ type: ClientCreatedDto })
  @ApiNotFoundResponse()
  createClient(@Param('id') id: string): Promise<ClientCreatedDto> {
    return this.admin.createClient(id);
  }

  @Delete(':id/clients/:client_id')
  @ApiOperation({ summary: 'Disable a client: new tokens are refused at once, issued tokens within seconds' })
  @ApiOkResponse({ type: ClientDto })
  @ApiNotFoundResponse()
  disableClient(@Param('id') id: string, @Param('client_id') clientId: string): Promise<ClientDto> {
    return this.admin.disableClient(id, clientId);
  }
}

/** vector-api: API tokens. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/tokens')
export class VectorTokensAdminController {
  constructor(private readonly admin: CredentialsAdminService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API token; the token is shown once' })
  @ApiCreatedResponse({ type: VectorTokenCreatedDto })
  create(@Body() body: NameDto): Promise<VectorTokenCreatedDto> {
    return this.admin.createVectorToken(body.name);
  }

  @Get()
  @ApiOkResponse({ type: VectorTokenListDto })
  async list(): Promise<VectorTokenListDto> {
    return { data: await this.admin.listVectorTokens() };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a token, effective immediately' })
  @ApiOkResponse({ type: VectorTokenDto })
  @ApiNotFoundResponse()
  revoke(@Param('id') id: string): Promise<VectorTokenDto> {
    return this.admin.revokeVectorToken(id);
  }
}

/** payments-api: accounts with a test and a live key. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts')
export class PaymentAccountsAdminController {
  constructor(private readonly admin: CredentialsAdminService) {}

  @Post()
  @ApiOperation({ summary: 'Create an account; its test and live keys are shown once' })
  @ApiCreatedResponse({ type: PaymentAccountCreatedDto })
  create(@Body() body: NameDto): Promise<PaymentAccountCreatedDto> {
    return this.admin.createPaymentAccount(body.name);
  }
}
