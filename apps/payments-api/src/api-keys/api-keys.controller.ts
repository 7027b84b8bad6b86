import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import { ApiErrors, Idempotent, IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { KeyResource } from '../accounts/permissions';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { LIST_ERRORS } from '../common/list';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyCreateDto, ApiKeyListQuery, ApiKeyRollDto } from './dto/api-key.dto';
import { ApiKeyCreatedView, ApiKeyListView, DeletedApiKeyView } from './dto/api-key.view';

const TEST_KEY_ON_LIVE = { code: 'permission_denied', when: 'a test-mode key naming live mode, or a restricted key' } as const;
const IN_GRACE = {
  code: 'credential_in_grace',
  when: 'the calling key is in the grace period of a roll: only the newest key manages keys',
} as const;

/**
 * An account manages its own keys with a secret key (restricted keys get 403) that is not in
 * a grace period. Roll and create honour Idempotency-Key: the replay check (before the grace
 * rule) returns the first answer, secret included, stored encrypted (decisions.md, 160).
 */
@ApiTags('api-keys')
@Authenticated('payments_key')
@KeyResource('api_keys')
@Controller('v2/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post('roll')
  @ApiOperation({
    summary: "Roll the mode's secret keys: a new one (shown once); the old ones stop after expires_in_hours (default: at once)",
  })
  @ApiCreatedResponse({ type: ApiKeyCreatedView })
  @Idempotent({ sealed: true })
  @ApiErrors(TEST_KEY_ON_LIVE, IN_GRACE, { code: 'api_key_limit_reached', when: 'the mode already has 100 working keys' })
  roll(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Body() dto: ApiKeyRollDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<ApiKeyCreatedView> {
    return this.keys.roll(key, dto, idempotency);
  }

  @Post()
  @ApiOperation({ summary: 'Create a restricted key (rk_…) with per-resource permissions; the key is shown once' })
  @ApiCreatedResponse({ type: ApiKeyCreatedView })
  @Idempotent({ sealed: true })
  @ApiErrors(TEST_KEY_ON_LIVE, IN_GRACE, { code: 'api_key_limit_reached', when: 'the mode already has 100 working keys' })
  create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Body() dto: ApiKeyCreateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<ApiKeyCreatedView> {
    return this.keys.create(key, dto, idempotency);
  }

  @Get()
  @ApiOperation({
    summary: "The account's working keys, newest first (a test key sees test keys; a live key both modes); never the secret",
  })
  @ApiOkResponse({ type: ApiKeyListView })
  @ApiErrors(...LIST_ERRORS, { code: 'permission_denied', when: 'a restricted key' })
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: ApiKeyListQuery): Promise<ApiKeyListView> {
    return this.keys.list(key, query);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a key at once, on every instance' })
  @ApiOkResponse({ type: DeletedApiKeyView })
  @ApiErrors(
    { code: 'resource_missing', when: 'no working key of the account by this id' },
    { code: 'permission_denied', when: 'a test-mode key revoking a live key, or a restricted key' },
    { code: 'last_secret_key', when: 'the only working secret key of its mode revoking itself' },
    IN_GRACE,
  )
  revoke(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<DeletedApiKeyView> {
    return this.keys.revoke(key, id);
  }
}
