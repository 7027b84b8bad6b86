import type { OpenAPIObject } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsTimestamp } from '../http/timestamp';
import type { DocumentedRoute } from './routes';
import { applyValidationRules } from './validator-schemas';

class Item {
  @ApiProperty() @IsString() @MaxLength(8) sku!: string;
}

class Body {
  @ApiProperty() @IsString() @Length(1, 200) name!: string;
  @ApiProperty() @IsIn(['a', 'b']) kind!: string;
  @ApiProperty() @IsInt() @Min(1) @Max(100) count!: number;
  @ApiProperty() @IsNumber() @IsPositive() @Max(5) price!: number;
  @ApiPropertyOptional() @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/) code?: string;
  @ApiPropertyOptional() @IsOptional() @IsEmail() email?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsTimestamp({ requireOffset: true }) at?: string;
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @ArrayMaxSize(3) @IsString({ each: true }) tags?: string[];
  @ApiProperty({ type: [Item] })
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];
}

class Query {
  @ApiPropertyOptional() @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @ApiPropertyOptional({ name: 'created[gte]' }) @IsOptional() @IsTimestamp({ unixSeconds: true }) 'created[gte]'?: string;
}

class Undocumented {
  @ApiProperty() @IsString() shown!: string;
  @IsString() hidden!: string;
}

const routes = (bodyType: unknown, queryType?: unknown): Map<string, DocumentedRoute> =>
  new Map([
    [
      'C_m',
      {
        operationId: 'C_m',
        controller: class {} as never,
        methodName: 'm',
        errors: [],
        ownErrorBody: false,
        bodyType: bodyType as never,
        queryType: queryType as never,
      },
    ],
  ]);

function document(schemas: Record<string, unknown>, parameters: unknown[] = []): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: { '/x': { post: { operationId: 'C_m', parameters: parameters as never, responses: {} } } },
    components: { schemas: schemas as never },
  };
}

const prop = (type = 'string'): Record<string, unknown> => ({ type });

describe('applyValidationRules', () => {
  it('writes what the validators enforce into the body schema, nested classes too', () => {
    const body = {
      type: 'object',
      required: ['name', 'kind', 'count', 'price', 'items', 'code'],
      properties: {
        name: prop(),
        kind: prop(),
        count: prop('number'),
        price: prop('number'),
        code: prop(),
        email: prop(),
        at: prop(),
        tags: { type: 'array', items: { type: 'string' } },
        items: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
      },
    };
    const item = { type: 'object', properties: { sku: prop() } };
    const doc = document({ Body: body, Item: item });
    applyValidationRules(doc, routes(Body));
    expect(body).toEqual({
      type: 'object',
      required: ['name', 'kind', 'count', 'price', 'items'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        kind: { type: 'string', enum: ['a', 'b'] },
        count: { type: 'integer', minimum: 1, maximum: 100 },
        price: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 5 },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        email: { type: 'string', format: 'email' },
        at: { type: 'string', format: 'date-time' },
        tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
        items: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Item' } },
      },
    });
    expect(item).toEqual({
      type: 'object',
      required: ['sku'],
      additionalProperties: false,
      properties: { sku: { type: 'string', maxLength: 8 } },
    });
  });

  it('writes the query class into the query parameters', () => {
    const limit = { in: 'query', name: 'limit', required: true, schema: { type: 'number' } };
    const created = { in: 'query', name: 'created[gte]', required: false, schema: { type: 'string' } };
    applyValidationRules(document({}, [limit, created]), routes(undefined, Query));
    expect(limit).toEqual({ in: 'query', name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
    expect(created.schema).toEqual({
      type: 'string',
      anyOf: [
        { type: 'string', format: 'date-time' },
        { type: 'string', pattern: '^[0-9]{1,12}$' },
      ],
    });
  });

  it('stops the boot when the document and the validators name different fields', () => {
    const shownOnly = { type: 'object', properties: { shown: prop() } };
    expect(() => applyValidationRules(document({ Undocumented: shownOnly }), routes(Undocumented))).toThrow(
      /Undocumented.hidden is validated but not documented/,
    );
    const extra = { type: 'object', properties: { shown: prop(), hidden: prop(), ghost: prop() } };
    expect(() => applyValidationRules(document({ Undocumented: extra }), routes(Undocumented))).toThrow(
      /Undocumented.ghost is documented but no validator admits it/,
    );
    const stray = { in: 'query', name: 'stray', required: false, schema: { type: 'string' } };
    expect(() => applyValidationRules(document({}, [stray]), routes(undefined, Query))).toThrow(/stray has no validator/);
  });
});
