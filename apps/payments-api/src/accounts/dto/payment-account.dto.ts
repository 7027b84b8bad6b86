import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IsDisplayName } from '@app/platform';

/** The body of POST /admin/v1/accounts. */
export class NameDto {
  @ApiProperty({ example: 'search-backend', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;
}

export class PaymentAccountCreatedDto {
  @ApiProperty({ example: 'acct_1Nv0...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'sk_test_...', description: 'Shown once; stored only as SHA-256.' }) test_key!: string;
  @ApiProperty({ example: 'sk_live_...', description: 'Shown once; stored only as SHA-256.' }) live_key!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
