import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { explainInvalid } from './validation-messages';

interface Leaf {
  readonly path: string;
  readonly error: ValidationError;
}

/** `parent.property`, or `parent[3]` for an index (how a `param` names a nested field). */
export function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

/** Depth-first: the first field with a failed constraint, with its dotted/indexed path. */
function firstLeaf(errors: readonly ValidationError[], parent = ''): Leaf | undefined {
  for (const error of errors) {
    const path = joinPath(parent, error.property);
    if (error.constraints && Object.keys(error.constraints).length > 0) return { path, error };
    const nested = firstLeaf(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * class-validator errors → one `DomainError` naming the offending `param` (Stripe style):
 * the first field in error, depth first; an unknown field is `parameter_unknown`, an absent
 * (or null) required one `parameter_missing` ("Missing required parameter: x." and nothing
 * else), any other `parameter_invalid` with one message about the rule it broke
 * (validation-messages.ts).
 */
export function validationErrorToDomain(errors: readonly ValidationError[]): DomainError {
  const leaf = firstLeaf(errors);
  if (!leaf) return new DomainError('body_invalid', 'The request is invalid.');
  const { path, error } = leaf;
  const constraints = error.constraints ?? {};
  if ('whitelistValidation' in constraints) {
    return new DomainError('parameter_unknown', `Received unknown parameter: ${path}`, { param: path });
  }
  if (error.value === undefined || error.value === null) {
    return new DomainError('parameter_missing', `Missing required parameter: ${path}.`, { param: path });
  }
  const problem = explainInvalid(error, path);
  return new DomainError('parameter_invalid', problem.message, { param: problem.path });
}

const isPlainObject = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Deepest nesting of objects/arrays accepted in a body or query (class-transformer recurses per level). */
export const MAX_INPUT_DEPTH = 32;

/**
 * Keys class-transformer and Nest's ValidationPipe drop without a word (`__proto__`,
 * `constructor`, `prototype`, and anything inherited from Object.prototype, e.g. `toString`),
 * so `forbidNonWhitelisted` never sees them: they are rejected as unknown parameters instead.
 */
const isDroppedKey = (key: string): boolean => key === 'prototype' || key in Object.prototype;

/**
 * A UTF-16 surrogate without its pair: JSON may spell it (`"\\ud800"`) but it is not Unicode,
 * and PostgreSQL refuses it in text and jsonb (it was a 500).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Checks that the validation pipe cannot make itself, run before it: nesting depth (deeper
 * input overflows the stack in class-transformer: a 500), NUL characters (PostgreSQL text
 * cannot hold U+0000: a 500 at the first query) and keys that would be dropped silently.
 * Iterative, so hostile input cannot overflow the stack here either.
 */
export function inspectInput(value: unknown, root: string): DomainError | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof v === 'string') {
      if (v.includes('\u0000')) {
        return new DomainError('parameter_invalid', `${path || 'The request'} must not contain the NUL character (\\u0000).`, {
          ...(path ? { param: path } : {}),
        });
      }
      if (LONE_SURROGATE.test(v)) {
        return new DomainError('parameter_invalid', `${path || 'The request'} must be valid Unicode (it has a lone surrogate).`, {
          ...(path ? { param: path } : {}),
        });
      }
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      return new DomainError(
        'parameter_invalid',
        `${path || 'The request body'} is nested more than ${MAX_INPUT_DEPTH} levels deep.`,
        {
          ...(path ? { param: path } : {}),
        },
      );
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child = joinPath(path, key);
      if (isDroppedKey(key))
        return new DomainError('parameter_unknown', `Received unknown parameter: ${child}`, { param: child });
      if (key.includes('\u0000') || LONE_SURROGATE.test(key)) {
        return new DomainError(
          'parameter_invalid',
          'Parameter names must be valid Unicode without the NUL character (\\u0000).',
          {
            ...(path ? { param: path } : {}),
          },
        );
      }
      stack.push({ value: (v as Record<string, unknown>)[key], path: child, depth: depth + 1 });
    }
  }
  return undefined;
}

const EMPTY_BODY_ALLOWED = Symbol('EMPTY_BODY_ALLOWED');

/**
 * Marks a body class whose fields are all optional: a request without a body (no
 * content-type, no bytes) is validated as `{}` instead of being refused. A body that is
 * present must still be a JSON object.
 */
export function EmptyBodyAllowed(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(EMPTY_BODY_ALLOWED, true, target);
  };
}

/**
 * Strict validation at the edge: unknown fields are rejected, values transformed into DTO
 * classes, and every failure is a 400 naming the field. A body that is not a JSON object is
 * rejected before class-validator sees it.
 */
export class PlatformValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      // the target lets validation-messages.ts find each constraint's arguments (never rendered)
      validationError: { target: true, value: true },
      exceptionFactory: (errors: ValidationError[]) => validationErrorToDomain(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    const isDto = metatype !== undefined && ![String, Boolean, Number, Array, Object].includes(metatype as never);
    if (metadata.type === 'body' && isDto && value === undefined && Reflect.getMetadata(EMPTY_BODY_ALLOWED, metatype) === true) {
      value = {};
    }
    if (metadata.type === 'body' && isDto && !isPlainObject(value)) {
      throw new DomainError('body_invalid', 'The request body must be a JSON object.');
    }
    if (metadata.type === 'query' && isDto && (value === undefined || value === null)) value = {};
    if (metadata.type === 'query' && isDto && isPlainObject(value) && Object.keys(value as object).length === 0) {
      return this.emptyQuery(metatype as new () => object, metadata);
    }
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      const problem = inspectInput(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
      if (problem) throw problem;
    }
    return super.transform(value, metadata);
  }

  /** Whether `{}` passed each query class's validation (decided once, by the full pipe). */
  private readonly emptyQueryValid = new WeakMap<object, boolean>();

  /**
   * An empty query string (most requests): once the full pipe has accepted `{}` for the
   * class, an instance of it is the answer without class-transformer and class-validator
   * (about 40 µs a request, measured on the Qdrant-compatible query route). A class `{}`
   * does not satisfy goes through the pipe every time and gets its 400.
   */
  private async emptyQuery(metatype: new () => object, metadata: ArgumentMetadata): Promise<unknown> {
    if (this.emptyQueryValid.get(metatype) === true) return new metatype();
    try {
      const validated: unknown = await super.transform({}, metadata);
      this.emptyQueryValid.set(metatype, true);
      return validated;
    } catch (err) {
      this.emptyQueryValid.set(metatype, false);
      throw err;
    }
  }
}
