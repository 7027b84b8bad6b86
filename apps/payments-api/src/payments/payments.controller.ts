import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPaymentRequiredResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { Idempotent } from '@app/platform';
import { tenantOf } from '../common/tenant';
import { PaymentCreateDto, PaymentListQuery } from './dto/payment.dto';
import { PaymentListView, PaymentView } from './dto/payment.view';
import { PaymentsService } from './payments.service';

@ApiTags('payments')
@Authenticated('payments_key')
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
  @ApiForbiddenResponse({ description: 'live_mode_not_enabled' })
  create(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Body() dto: PaymentCreateDto): Promise<PaymentView> {
    return this.payments.create(tenantOf(key), dto);
  }

  @Get()
  @ApiOperation({ summary: 'List payments, newest first' })
  @ApiOkResponse({ type: PaymentListView })
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: PaymentListQuery): Promise<PaymentListView> {
    return this.payments.list(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: PaymentView })
  @ApiNotFoundResponse()
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<PaymentView> {
    return this.payments.retrieve(tenantOf(key), id);
  }
}
