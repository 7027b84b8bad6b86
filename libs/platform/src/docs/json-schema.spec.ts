import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { jsonSchemaOf } from './json-schema';

class Inner {
  @ApiProperty({ type: 'integer', description: 'count' }) n!: number;
}

class Sample {
  @ApiProperty({ example: 'x_1' }) id!: string;
  @ApiProperty({ enum: ['a', 'b'] }) kind!: 'a' | 'b';
  @ApiProperty({ enum: ['r'], nullable: true }) reason!: 'r' | null;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty() flag!: boolean;
  @ApiProperty() ratio!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: Inner }) inner!: Inner;
  @ApiProperty({ type: [Inner] }) inners!: Inner[];
  @ApiPropertyOptional() maybe?: string;
}

class NoFields {}

describe('jsonSchemaOf', () => {
  const schema = jsonSchemaOf(Sample) as {
    type: string;
    required: string[];
    additionalProperties: boolean;
    properties: Record<string, Record<string, unknown>>;
  };

  it('is a strict object schema: every non-optional field required, nothing else allowed', () => {
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual([
      'id',
      'kind',
      'reason',
      'note',
      'at',
      'flag',
      'ratio',
      'metadata',
      'tags',
      'inner',
      'inners',
    ]);
  });

  it('maps each decorator to its JSON Schema keywords', () => {
    const p = schema.properties;
    expect(p['id']).toEqual({ type: 'string', examples: ['x_1'] });
    expect(p['kind']).toEqual({ enum: ['a', 'b'] });
    expect(p['reason']).toEqual({ enum: ['r', null] });
    expect(p['note']).toEqual({ type: ['string', 'null'] });
    expect(p['at']).toEqual({ type: 'string', format: 'date-time' });
    expect(p['flag']).toEqual({ type: 'boolean' });
    expect(p['ratio']).toEqual({ type: 'number' });
    expect(p['metadata']).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(p['tags']).toEqual({ type: 'array', items: { type: 'string' } });
    const inner = {
      type: 'object',
      properties: { n: { type: 'integer', description: 'count' } },
      required: ['n'],
      additionalProperties: false,
    };
    expect(p['inner']).toEqual(inner);
    expect(p['inners']).toEqual({ type: 'array', items: inner });
    expect(p['maybe']).toEqual({ type: 'string' });
  });

  it('refuses a class without @ApiProperty fields', () => {
    expect(() => jsonSchemaOf(NoFields)).toThrow(/no @ApiProperty fields/);
  });
});
