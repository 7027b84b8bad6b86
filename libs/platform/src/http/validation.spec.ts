import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { isDomainError } from '../errors/domain-error';
import { IsTimestamp } from './timestamp';
import { PlatformValidationPipe } from './validation';

enum Colour {
  Red = 'red',
  Blue = 'blue',
}

class Row {
  @IsString()
  @Length(1, 8)
  id!: string;

  @IsArray()
  embedding!: unknown[];
}

class Everything {
  @IsString()
  @MaxLength(64)
  customer_id!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  amount?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  price?: number;

  @IsOptional()
  @IsIn(['ipo', 'placing', 'retail_offer'])
  type?: string;

  @IsOptional()
  @IsEnum(Colour)
  colour?: Colour;

  @IsOptional()
  @IsBoolean()
  accepted?: boolean;

  @IsOptional()
  @IsString()
  @Length(1, 5)
  name?: string;

  @IsOptional()
  @IsString()
  @MinLength(3)
  code?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]+$/)
  ticker?: string;

  @IsOptional()
  @IsString()
  @Matches(/^v\d+$/, { message: 'version must look like v<number>' })
  version?: string;

  @IsOptional()
  @IsEmail()
  email?: string;

  @IsOptional()
  @IsString()
  @IsTimestamp({ requireOffset: true })
  opens_at?: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @IsString({ each: true })
  ids?: string[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Row)
  rows?: Row[];
}

const pipe = new PlatformValidationPipe();

async function refusal(body: Record<string, unknown>): Promise<{ code: string; param: string | undefined; message: string }> {
  try {
    await pipe.transform({ customer_id: 'cus_1', ...body }, { type: 'body', metatype: Everything, data: undefined });
  } catch (err) {
    if (isDomainError(err)) return { code: err.code, param: err.param, message: err.message };
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('PlatformValidationPipe: one message per field, about the rule it broke', () => {
  it('a missing required field: parameter_missing, and nothing about its other rules', async () => {
    await expect(refusal({ customer_id: undefined })).resolves.toEqual({
      code: 'parameter_missing',
      param: 'customer_id',
      message: 'Missing required parameter: customer_id.',
    });
    await expect(refusal({ customer_id: null })).resolves.toMatchObject({ code: 'parameter_missing', param: 'customer_id' });
    await expect(refusal({ rows: [{ id: 'a', embedding: [1] }, { id: 'b' }] })).resolves.toEqual({
      code: 'parameter_missing',
      param: 'rows[1].embedding',
      message: 'Missing required parameter: rows[1].embedding.',
    });
  });

  it.each([
    // type before length or range
    [{ customer_id: 5 }, 'customer_id', 'customer_id must be a string.'],
    [{ customer_id: 'x'.repeat(65) }, 'customer_id', 'customer_id must be at most 64 characters long.'],
    [{ amount: 'ten' }, 'amount', 'amount must be an integer.'],
    [{ amount: 1.5 }, 'amount', 'amount must be an integer.'],
    [{ amount: 0 }, 'amount', 'amount must be at least 1.'],
    [{ amount: 101 }, 'amount', 'amount must be at most 100.'],
    [{ price: '2' }, 'price', 'price must be a number.'],
    [{ price: -1 }, 'price', 'price must be greater than 0.'],
    [{ type: 'bond' }, 'type', 'type must be one of: ipo, placing, retail_offer.'],
    [{ type: 3 }, 'type', 'type must be one of: ipo, placing, retail_offer.'],
    [{ colour: 'green' }, 'colour', 'colour must be one of: red, blue.'],
    [{ accepted: 'yes' }, 'accepted', 'accepted must be a boolean (true or false).'],
    [{ name: '' }, 'name', 'name must not be empty.'],
    [{ name: 'abcdef' }, 'name', 'name must be at most 5 characters long.'],
    [{ name: 7 }, 'name', 'name must be a string.'],
    [{ code: 'ab' }, 'code', 'code must be at least 3 characters long.'],
    [{ ticker: 'abc' }, 'ticker', 'ticker must match the pattern /^[A-Z]+$/.'],
    // a DTO's own message is kept, once, with a full stop
    [{ version: '1' }, 'version', 'version must look like v<number>.'],
    [{ email: 'nobody' }, 'email', 'email must be an email address.'],
    [{ opens_at: 5 }, 'opens_at', 'opens_at must be a string.'],
    [
      { opens_at: '2025-02-29T00:00:00Z' },
      'opens_at',
      'opens_at must be an ISO 8601 timestamp with Z or an offset from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (a real calendar date).',
    ],
    [{ metadata: [] }, 'metadata', 'metadata must be an object.'],
    [{ ids: 'a' }, 'ids', 'ids must be an array.'],
    [{ ids: [] }, 'ids', 'ids must not be empty.'],
    [{ ids: ['a', 'b', 'c', 'd'] }, 'ids', 'ids must have at most 3 items.'],
    // a rule on each item names the item
    [{ ids: ['a', 2, 'c'] }, 'ids[1]', 'ids[1] must be a string.'],
    [{ rows: 'x' }, 'rows', 'rows must be an array.'],
    [{ rows: [{ id: 'a', embedding: [] }, 7] }, 'rows[1]', 'rows[1] must be an object.'],
    [
      {
        rows: [
          { id: 'a', embedding: [] },
          { id: '', embedding: [] },
        ],
      },
      'rows[1].id',
      'rows[1].id must not be empty.',
    ],
    [{ rows: [{ id: 'a', embedding: 'x' }] }, 'rows[0].embedding', 'rows[0].embedding must be an array.'],
  ] as const)('%j → %s: %s', async (body, param, message) => {
    await expect(refusal(body)).resolves.toEqual({ code: 'parameter_invalid', param, message });
  });

  it('an unknown field is parameter_unknown', async () => {
    await expect(refusal({ colour_: 'red' })).resolves.toMatchObject({ code: 'parameter_unknown', param: 'colour_' });
  });
});

class PageQuery {
  @IsOptional()
  @IsString()
  cursor?: string;
}

class NeedsQuery {
  @IsString()
  q!: string;
}

describe('PlatformValidationPipe: an empty query string', () => {
  it('answers an instance of the class once {} passed its validation, and still refuses bad or unknown parameters', async () => {
    const query = (value: unknown, metatype: new () => object): Promise<unknown> =>
      pipe.transform(value, { type: 'query', metatype, data: undefined });
    const first = await query({}, PageQuery);
    const again = await query(Object.create(null) as object, PageQuery);
    expect(first).toBeInstanceOf(PageQuery);
    expect(again).toBeInstanceOf(PageQuery);
    expect(again).toEqual({});
    expect(await query({ cursor: 'c1' }, PageQuery)).toEqual(Object.assign(new PageQuery(), { cursor: 'c1' }));
    await expect(query({ cursor: 'c1', other: 'x' }, PageQuery)).rejects.toMatchObject({ code: 'parameter_unknown' });
    await expect(query({ cursor: 5 }, PageQuery)).rejects.toMatchObject({ param: 'cursor' });
  });

  it('refuses {} every time for a class that requires a parameter', async () => {
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({}, { type: 'query', metatype: NeedsQuery, data: undefined })).rejects.toMatchObject({
        param: 'q',
      });
    }
  });
});
