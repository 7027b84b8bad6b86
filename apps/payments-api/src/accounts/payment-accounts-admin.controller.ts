import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { NameDto, PaymentAccountCreatedDto, PaymentAccountListDto, PaymentAccountListQueryDto } from './dto/payment-account.dto';
import { PaymentAccountsService } from './payment-accounts.service';

/** Accounts with a test and a live key. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/accounts')
export class PaymentAccountsAdminController {
  constructor(private readonly accounts: PaymentAccountsService) {}

  @Post()
  @ApiOperation({ summary: 'Create an account; its test and live keys are shown once' })
  @ApiCreatedResponse({ type: PaymentAccountCreatedDto })
  create(@Body() body: NameDto): Promise<PaymentAccountCreatedDto> {
    return this.accounts.create(body.name);
  }

  @Get()
  @ApiOperation({ summary: 'List accounts, newest first, with their working API keys by mode; search by name prefix' })
  @ApiOkResponse({ type: PaymentAccountListDto })
  @ApiErrors(
    { code: 'resource_missing', status: 400, when: 'starting_after or ending_before names no account' },
    { code: 'parameter_invalid', when: 'starting_after with ending_before' },
  )
  list(@Query() query: PaymentAccountListQueryDto): Promise<PaymentAccountListDto> {
    return this.accounts.list(query);
  }
}
