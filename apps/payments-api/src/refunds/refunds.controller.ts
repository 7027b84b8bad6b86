import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { Idempotent } from '@app/platform';
import { tenantOf } from '../common/tenant';
import { RefundCreateDto, RefundListQuery } from './dto/refund.dto';
import { RefundListView, RefundView } from './dto/refund.view';
import { RefundsService } from './refunds.service';

@ApiTags('refunds')
@Authenticated('payments_key')
@Idempotent()
@Controller('v2/refunds')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post()
  @ApiOperation({ summary: 'Refund a payment in full (default) or in part' })
  @ApiCreatedResponse({ type: RefundView })
  @ApiBadRequestResponse({ description: 'amount_exceeds_refundable, payment_not_refundable, resource_missing (payment_id)' })
  create(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Body() dto: RefundCreateDto): Promise<RefundView> {
    return this.refunds.create(tenantOf(key), dto);
  }

  @Get()
  @ApiOperation({ summary: 'List refunds, newest first (optionally of one payment)' })
  @ApiOkResponse({ type: RefundListView })
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: RefundListQuery): Promise<RefundListView> {
    return this.refunds.list(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: RefundView })
  @ApiNotFoundResponse()
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<RefundView> {
    return this.refunds.retrieve(tenantOf(key), id);
  }
}
