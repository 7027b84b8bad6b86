import type { Type } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';

/** A JSON Schema (draft 2020-12 subset) as plain JSON. */
export type JsonSchema = { readonly [key: string]: unknown };

/** What `@ApiProperty` stores per property (the part this converter reads). */
interface PropertyMetadata {
  readonly type?: unknown;
  readonly isArray?: boolean;
  readonly items?: unknown;
  readonly required?: boolean;
  readonly nullable?: boolean;
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly description?: string;
  readonly example?: unknown;
  readonly additionalProperties?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

const PRIMITIVES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Object, 'object'],
  ['string', 'string'],
  ['number', 'number'],
  ['integer', 'integer'],
  ['boolean', 'boolean'],
  ['object', 'object'],
]);

function prototypeOf(cls: Type<unknown>): object {
  return cls.prototype as object;
}

function isClass(value: unknown): value is Type<unknown> {
  return (
    typeof value === 'function' &&
    Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototypeOf(value as Type<unknown>)) !== undefined
  );
}

function typeSchema(type: unknown, where: string, seen: ReadonlySet<Type<unknown>>): Record<string, unknown> {
  if (type === Date) return { type: 'string', format: 'date-time' };
  const primitive = PRIMITIVES.get(type);
  if (primitive !== undefined) return { type: primitive };
  if (isClass(type)) return { ...classSchema(type, seen) };
  if (typeof type === 'function' && !isClass(type)) {
    // `type: () => X` (a lazy reference): resolve it once
    const resolved: unknown = (type as () => unknown)();
    if (isClass(resolved)) return { ...classSchema(resolved, seen) };
  }
  throw new Error(
    `jsonSchemaOf: ${where} has a type this converter does not know (${String(type)}); extend libs/platform/src/docs/json-schema.ts`,
  );
}

function propertySchema(meta: PropertyMetadata, where: string, seen: ReadonlySet<Type<unknown>>): Record<string, unknown> {
  let schema: Record<string, unknown>;
  if (meta.enum !== undefined) {
    const values = [...meta.enum];
    schema = { enum: meta.nullable === true ? [...values, null] : values };
  } else {
    schema = typeSchema(meta.type, where, seen);
    if (meta.format !== undefined) schema.format = meta.format;
    if (meta.additionalProperties !== undefined) schema.additionalProperties = meta.additionalProperties;
    if (meta.minimum !== undefined) schema.minimum = meta.minimum;
    if (meta.maximum !== undefined) schema.maximum = meta.maximum;
    if (meta.nullable === true && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  }
  if (meta.isArray === true) {
    schema = { type: meta.nullable === true ? ['array', 'null'] : 'array', items: schema };
  }
  if (meta.description !== undefined) schema.description = meta.description;
  if (meta.example !== undefined) schema.examples = [meta.example];
  return schema;
}

function classSchema(cls: Type<unknown>, seen: ReadonlySet<Type<unknown>>): JsonSchema {
  if (seen.has(cls)) throw new Error(`jsonSchemaOf: ${cls.name} refers to itself; recursive schemas are not supported`);
  const inner = new Set(seen).add(cls);
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototypeOf(cls)) as string[] | undefined) ?? [];
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const key of names) {
    const name = key.startsWith(':') ? key.slice(1) : key;
    const meta = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, prototypeOf(cls), name) ?? {}) as PropertyMetadata;
    properties[name] = propertySchema(meta, `${cls.name}.${name}`, inner);
    if (meta.required !== false) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * The JSON Schema of a response class, derived from the same `@ApiProperty` decorators that
 * document it in OpenAPI, so the two cannot disagree. Stricter than the OpenAPI component
 * on purpose: every property not marked optional is `required` and no other property is
 * allowed (`additionalProperties: false`), so a view that emits a field its class does not
 * declare fails validation (webhook event catalogues validate their examples with it).
 */
export function jsonSchemaOf(cls: Type<unknown>): JsonSchema {
  if (!isClass(cls)) throw new Error(`jsonSchemaOf: ${(cls as { name: string }).name} has no @ApiProperty fields`);
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: cls.name, ...classSchema(cls, new Set()) };
}
