import type { Type } from '@nestjs/common';
import { DECORATORS, type OpenAPIObject } from '@nestjs/swagger';
import type { ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import {
  ARRAY_MAX_SIZE,
  ARRAY_MIN_SIZE,
  IS_ARRAY,
  IS_BOOLEAN,
  IS_EMAIL,
  IS_ENUM,
  IS_IN,
  IS_INT,
  IS_LENGTH,
  IS_NUMBER,
  IS_OBJECT,
  IS_OPTIONAL,
  IS_POSITIVE,
  IS_STRING,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
} from 'class-validator';
import { IS_DISPLAY_NAME } from '../http/display-name';
import { IS_TIMESTAMP, type TimestampOptions } from '../http/timestamp';
import { type ValidationMetadata, validationMetadataOf } from '../http/validation-metadata';
import type { DocumentedRoute } from './routes';

/**
 * The OpenAPI document's request schemas say what the validators enforce, because they are
 * derived from them: every class-validator rule of a request body or query class that JSON
 * Schema can express becomes its keyword (`@Length(1, 200)` → `minLength: 1, maxLength:
 * 200`, `@IsIn([...])` → `enum`, `@IsInt()` → `type: integer`, `@IsOptional()` → not in
 * `required`), and the validation pipe's refusal of unknown fields is
 * `additionalProperties: false`. Rules JSON Schema cannot say (a custom validator such as a
 * number of decimal places, a cross-field rule) stay in the property's description.
 */

type Schema = SchemaObject & Record<string, unknown>;

/** The rules of one validated property: JSON Schema keywords for the value and, for `{ each: true }` rules, for its items. */
export interface PropertyRules {
  readonly optional: boolean;
  readonly keywords: Schema;
  readonly items: Schema;
}

/** The JSON Schema keywords one class-validator rule stands for ({} for a rule JSON Schema cannot express). */
export function keywordsOfRule(m: ValidationMetadata): Schema {
  const c = (m.constraints ?? []) as unknown[];
  switch (m.name ?? '') {
    case IS_STRING:
      return { type: 'string' };
    case IS_INT:
      return { type: 'integer' };
    case IS_NUMBER:
      return { type: 'number' };
    case IS_BOOLEAN:
      return { type: 'boolean' };
    case IS_OBJECT:
      return { type: 'object' };
    case IS_ARRAY:
      return { type: 'array' };
    case MIN:
      return { minimum: c[0] as number };
    case MAX:
      return { maximum: c[0] as number };
    case IS_POSITIVE:
      return { minimum: 0, exclusiveMinimum: true };
    case IS_LENGTH:
      return { minLength: c[0] as number, ...(c[1] === undefined ? {} : { maxLength: c[1] as number }) };
    case MIN_LENGTH:
      return { minLength: c[0] as number };
    case MAX_LENGTH:
      return { maxLength: c[0] as number };
    case MATCHES: {
      const pattern = c[0];
      if (pattern instanceof RegExp) return pattern.flags === '' ? { pattern: pattern.source } : {};
      return typeof pattern === 'string' && (c[1] === undefined || c[1] === '') ? { pattern } : {};
    }
    case IS_IN:
      return { enum: [...(c[0] as unknown[])] };
    case IS_ENUM:
      return { enum: Object.values(c[0] as object) };
    case ARRAY_MIN_SIZE:
      return { minItems: c[0] as number };
    case ARRAY_MAX_SIZE:
      return { maxItems: c[0] as number };
    case IS_EMAIL:
      return { format: 'email' };
    case IS_TIMESTAMP:
      // an ISO 8601 time, or (unixSeconds) Unix seconds as well
      return (c[0] as TimestampOptions | undefined)?.unixSeconds
        ? {
            anyOf: [
              { type: 'string', format: 'date-time' },
              { type: 'string', pattern: '^[0-9]{1,12}$' },
            ],
          }
        : { format: 'date-time' };
    case IS_DISPLAY_NAME:
      // no control, bidirectional or invisible formatting character (http/display-name.ts)
      return { pattern: c[0] as string };
    default:
      return {};
  }
}

/** What the validators of one property enforce, as JSON Schema. */
export function rulesOf(metadata: readonly ValidationMetadata[]): PropertyRules {
  const keywords: Schema = {};
  const items: Schema = {};
  let optional = false;
  for (const m of metadata) {
    if (m.name === IS_OPTIONAL) optional = true;
    const target = m.each ? items : keywords;
    const { minimum, exclusiveMinimum, ...rest } = keywordsOfRule(m);
    Object.assign(target, rest);
    if (minimum === undefined) continue;
    // @Min(1) with @IsPositive(): the stricter lower bound holds
    const current = target.minimum;
    const stricter =
      current === undefined ||
      minimum > current ||
      (minimum === current && exclusiveMinimum === true && !target.exclusiveMinimum);
    if (!stricter) continue;
    target.minimum = minimum;
    if (exclusiveMinimum === true) target.exclusiveMinimum = true;
    else delete target.exclusiveMinimum;
  }
  return { optional, keywords, items };
}

const isReference = (s: unknown): s is ReferenceObject => typeof s === 'object' && s !== null && '$ref' in s;

/** Puts the rules into a property's (or a parameter's) schema. A `$ref` cannot take siblings: its own schema has them. */
export function applyRules(schema: Schema, rules: PropertyRules): void {
  if (isReference(schema)) return;
  Object.assign(schema, rules.keywords);
  if (Object.keys(rules.items).length > 0) {
    const items = (schema.items ?? {}) as Schema;
    if (!isReference(items)) {
      Object.assign(items, rules.items);
      schema.items = items;
    }
  }
}

/** Classes a property's @ApiProperty({ type }) names (nested request objects). */
function nestedTypes(type: Type): Type[] {
  const prototype = type.prototype as object;
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, prototype) as string[] | undefined) ?? [];
  const found: Type[] = [];
  for (const name of names) {
    const options = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, prototype, name.replace(/^:/, '')) as
      { type?: unknown } | undefined;
    let t = options?.type;
    // a lazy `type: () => Dto` (an arrow function: no prototype)
    if (typeof t === 'function' && !('prototype' in t && t.prototype)) t = (t as () => unknown)();
    if (typeof t === 'function' && validationMetadataOf(t as Type).size > 0) {
      found.push(t as Type);
    }
  }
  return found;
}

/** A request body class and the classes nested in it, each once. */
function withNested(types: Iterable<Type>): Set<Type> {
  const all = new Set<Type>();
  const pending = [...types];
  while (pending.length > 0) {
    const t = pending.pop() as Type;
    if (all.has(t)) continue;
    all.add(t);
    pending.push(...nestedTypes(t));
  }
  return all;
}

/**
 * Puts every validator of the app's request bodies and query strings into `document`: a
 * body class's component schema (found by class name, as @nestjs/swagger names it) and
 * each query parameter. A validated field the document does not show, or a documented
 * field no validator admits (the validation pipe refuses unknown fields), stops the boot:
 * the document would be wrong.
 */
export function applyValidationRules(document: OpenAPIObject, routes: ReadonlyMap<string, DocumentedRoute>): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const bodyTypes = withNested([...routes.values()].flatMap((r) => (r.bodyType ? [r.bodyType] : [])));
  const byName = new Map<string, Type>();
  for (const type of bodyTypes) {
    const other = byName.get(type.name);
    if (other && other !== type) throw new Error(`OpenAPI: two request classes are named ${type.name}; rename one`);
    byName.set(type.name, type);
    const schema = schemas[type.name];
    if (!schema) continue; // a body the route documents otherwise (a form)
    const metadata = validationMetadataOf(type);
    if (metadata.size === 0) continue; // not validated by the pipe (a form its route reads itself)
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    // no @ApiProperty at all: an undocumented class (a test probe); the apps' are checked by test/platform/openapi-document
    if (Object.keys(properties).length === 0) continue;
    for (const name of Object.keys(properties)) {
      if (!metadata.has(name)) throw new Error(`OpenAPI: ${type.name}.${name} is documented but no validator admits it`);
    }
    const required: string[] = [];
    for (const [name, rules] of [...metadata].map(([n, m]) => [n, rulesOf(m)] as const)) {
      const property = properties[name];
      if (!property) throw new Error(`OpenAPI: ${type.name}.${name} is validated but not documented (@ApiProperty)`);
      applyRules(property, rules);
      if (!rules.optional) required.push(name);
    }
    if (required.length > 0) schema.required = required;
    else delete schema.required;
    schema.additionalProperties = false;
  }

  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { operationId?: string; parameters?: unknown[] }>)) {
      const route = operation.operationId === undefined ? undefined : routes.get(operation.operationId);
      if (!route?.queryType) continue;
      const parameters = (operation.parameters ?? []) as ParameterObject[];
      if (!parameters.some((p) => p.in === 'query')) continue; // an undocumented query class, as above
      const metadata = validationMetadataOf(route.queryType);
      for (const p of parameters.filter((p) => p.in === 'query')) {
        if (!metadata.has(p.name))
          throw new Error(`OpenAPI: ${method.toUpperCase()} ${path}: query parameter ${p.name} has no validator`);
      }
      for (const [name, m] of metadata) {
        const parameter = parameters.find((p) => p.in === 'query' && p.name === name);
        if (!parameter)
          throw new Error(`OpenAPI: ${method.toUpperCase()} ${path}: ${route.queryType.name}.${name} is not documented`);
        const rules = rulesOf(m);
        const schema = (parameter.schema ?? {}) as Schema;
        applyRules(schema, rules);
        parameter.schema = schema;
        parameter.required = !rules.optional;
      }
    }
  }
}
