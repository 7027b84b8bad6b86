import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiPaymentRequiredResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { ApiErrors, Idempotent } from '@app/platform';
import { LIST_ERRORS } from '../common/list';
import { tenantOf } from '../common/tenant';
import { PaymentCreateDto, PaymentListQuery } from './dto/payment.dto';
import { PaymentListView, PaymentView } from './dto/payment.view';
import { PaymentsService } from './payments.service';
import { KeyResource } from '../accounts/permissions';

@ApiTags('payments')
@Authenticated('payments_key')
@KeyResource('payments')
@Idempotent()
@Controller('v2/payments')
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

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
  create(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Body() dto: PaymentCreateDto): Promise<PaymentView> {
    return this.payments.create(tenantOf(key), dto);
  }

  @Get()
  @ApiOperation({ summary: 'List payments, newest first' })
  @ApiOkResponse({ type: PaymentListView })
  @ApiErrors(...LIST_ERRORS)
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: PaymentListQuery): Promise<PaymentListView> {
    return this.payments.list(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: PaymentView })
  @ApiErrors({ code: 'resource_missing', when: 'no such payment' })
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<PaymentView> {
    return this.payments.retrieve(tenantOf(key), id);
  }
}
