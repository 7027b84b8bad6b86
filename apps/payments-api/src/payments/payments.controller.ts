import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiPaymentRequiredResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { ApiErrors, Idempotent, IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { LIST_ERRORS } from '../common/list';
import { tenantOf } from '../common/tenant';
import { AuthorizationsService } from './authorizations.service';
import {
  PaymentCancelDto,
  PaymentCaptureDto,
  PaymentCreateDto,
  PaymentListQuery,
  PaymentUpdateDto,
  PaymentVolumeQuery,
} from './dto/payment.dto';
import { PaymentListView, PaymentView, PaymentVolumeView } from './dto/payment.view';
import { PaymentsService } from './payments.service';
import { KeyResource } from '../accounts/permissions';

@ApiTags('payments')
@Authenticated('payments_key')
@KeyResource('payments')
@Idempotent()
@Controller('v2/payments')
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly authorizations: AuthorizationsService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Charge a customer' })
  @ApiCreatedResponse({ type: PaymentView })
  @ApiPaymentRequiredResponse({
    description: 'card_error: the payment was stored as failed (error.payment_id, error.decline_code)',
  })
  @ApiErrors(
    'card_declined',
    'processing_error',
    { code: 'live_mode_not_enabled', when: 'a live key while no live processor is configured' },
    { code: 'resource_missing', status: 400, when: 'customer_id names no customer of yours' },
    { code: 'parameter_invalid', when: 'an unknown test payment_method' },
  )
  create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Body() dto: PaymentCreateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<PaymentView> {
    return this.payments.create(tenantOf(key), dto, idempotency);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update the description or metadata (a metadata key set to "" or null is removed)' })
  @ApiOkResponse({ type: PaymentView })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such payment' },
    { code: 'parameter_invalid', when: 'more than 50 metadata keys once merged' },
  )
  update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @Body() dto: PaymentUpdateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<PaymentView> {
    return this.payments.update(tenantOf(key), id, dto, idempotency);
  }

  @Post(':id/capture')
  @HttpCode(200)
  @ApiOperation({ summary: 'Capture an authorization (capture_method manual), in full or in part; the rest is released' })
  @ApiOkResponse({ type: PaymentView })
  @ApiErrors({ code: 'resource_missing', when: 'no such payment' }, 'payment_unexpected_state', 'amount_exceeds_capturable', {
    code: 'live_mode_not_enabled',
    when: 'a live key while no live processor is configured',
  })
  capture(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @Body() dto: PaymentCaptureDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<PaymentView> {
    return this.authorizations.capture(tenantOf(key), id, dto, idempotency);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an authorization (capture_method manual): release it without capture' })
  @ApiOkResponse({ type: PaymentView })
  @ApiErrors({ code: 'resource_missing', when: 'no such payment' }, 'payment_unexpected_state', {
    code: 'live_mode_not_enabled',
    when: 'a live key while no live processor is configured',
  })
  cancel(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @Body() dto: PaymentCancelDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<PaymentView> {
    return this.authorizations.cancel(tenantOf(key), id, dto, idempotency);
  }

  @Get()
  @ApiOperation({ summary: 'List payments, newest first' })
  @ApiOkResponse({ type: PaymentListView })
  @ApiErrors(...LIST_ERRORS)
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: PaymentListQuery): Promise<PaymentListView> {
    return this.payments.list(tenantOf(key), query);
  }

  @Get('volume')
  @ApiOperation({
    summary: 'Succeeded volume per UTC day and currency (the dashboard chart): the last `days` days, today included',
  })
  @ApiOkResponse({ type: PaymentVolumeView })
  volume(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: PaymentVolumeQuery): Promise<PaymentVolumeView> {
    return this.payments.volume(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: PaymentView })
  @ApiErrors({ code: 'resource_missing', when: 'no such payment' })
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<PaymentView> {
    return this.payments.retrieve(tenantOf(key), id);
  }
}
