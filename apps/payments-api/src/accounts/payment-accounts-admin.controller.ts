import { Body, Controller, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '@app/platform';
import { NameDto, PaymentAccountCreatedDto } from './dto/payment-account.dto';
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
}
