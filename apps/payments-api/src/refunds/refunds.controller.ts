import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { ApiErrors, Idempotent, IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { LIST_ERRORS } from '../common/list';
import { tenantOf } from '../common/tenant';
import { RefundCreateDto, RefundListQuery, RefundUpdateDto } from './dto/refund.dto';
import { RefundListView, RefundView } from './dto/refund.view';
import { RefundsService } from './refunds.service';
import { KeyResource } from '../accounts/permissions';

@ApiTags('refunds')
@Authenticated('payments_key')
@KeyResource('refunds')
@Idempotent()
@Controller('v2/refunds')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post()
  @ApiOperation({ summary: 'Refund a payment in full (default) or in part' })
  @ApiCreatedResponse({ type: RefundView })
  @ApiErrors(
    { code: 'amount_exceeds_refundable', when: 'more than what is left to refund' },
    { code: 'payment_not_refundable', when: 'the payment did not succeed' },
    { code: 'resource_missing', status: 400, when: 'payment_id names no payment of yours' },
  )
  create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Body() dto: RefundCreateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<RefundView> {
    return this.refunds.create(tenantOf(key), dto, idempotency);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a refund\'s metadata (a key set to "" or null is removed)' })
  @ApiOkResponse({ type: RefundView })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such refund' },
    { code: 'parameter_invalid', when: 'more than 50 metadata keys once merged' },
  )
  update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @Body() dto: RefundUpdateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<RefundView> {
    return this.refunds.update(tenantOf(key), id, dto, idempotency);
  }

  @Get()
  @ApiOperation({ summary: 'List refunds, newest first (optionally of one payment)' })
  @ApiOkResponse({ type: RefundListView })
  @ApiErrors(...LIST_ERRORS)
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: RefundListQuery): Promise<RefundListView> {
    return this.refunds.list(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: RefundView })
  @ApiErrors({ code: 'resource_missing', when: 'no such refund' })
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<RefundView> {
    return this.refunds.retrieve(tenantOf(key), id);
  }
}
