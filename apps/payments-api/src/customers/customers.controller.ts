import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PaymentsKeyPrincipal } from '../accounts/payments-key.principal';
import { ApiErrors, Idempotent, IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { LIST_ERRORS } from '../common/list';
import { tenantOf } from '../common/tenant';
import { CustomersService } from './customers.service';
import { CustomerCreateDto, CustomerListQuery, CustomerUpdateDto } from './dto/customer.dto';
import { CustomerListView, CustomerView, DeletedCustomerView } from './dto/customer.view';
import { KeyResource } from '../accounts/permissions';

@ApiTags('customers')
@Authenticated('payments_key')
@KeyResource('customers')
@Idempotent()
@Controller('v2/customers')
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

  @Post()
  @ApiOperation({ summary: 'Create a customer' })
  @ApiCreatedResponse({ type: CustomerView })
  create(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Body() dto: CustomerCreateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<CustomerView> {
    return this.customers.create(tenantOf(key), dto, idempotency);
  }

  @Get()
  @ApiOperation({ summary: 'List customers, newest first' })
  @ApiOkResponse({ type: CustomerListView })
  @ApiErrors(...LIST_ERRORS)
  list(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Query() query: CustomerListQuery): Promise<CustomerListView> {
    return this.customers.list(tenantOf(key), query);
  }

  @Get(':id')
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors({ code: 'resource_missing', when: 'no such customer' })
  retrieve(@CurrentPrincipal() key: PaymentsKeyPrincipal, @Param('id') id: string): Promise<CustomerView> {
    return this.customers.retrieve(tenantOf(key), id);
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a customer (fields omitted are unchanged)' })
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors({ code: 'resource_missing', when: 'no such customer' })
  update(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @Body() dto: CustomerUpdateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<CustomerView> {
    return this.customers.update(tenantOf(key), id, dto, idempotency);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a customer; it can no longer be charged' })
  @ApiOkResponse({ type: DeletedCustomerView })
  @ApiErrors({ code: 'resource_missing', when: 'no such customer' })
  delete(
    @CurrentPrincipal() key: PaymentsKeyPrincipal,
    @Param('id') id: string,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<DeletedCustomerView> {
    return this.customers.delete(tenantOf(key), id, idempotency);
  }
}
