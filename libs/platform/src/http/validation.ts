import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';

interface Leaf {
  readonly path: string;
  readonly error: ValidationError;
}

function joinPath(parent: string, property: string): string {
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

/** class-validator errors → one `DomainError` naming the offending `param` (Stripe style). */
export function validationErrorToDomain(errors: readonly ValidationError[]): DomainError {
  const leaf = firstLeaf(errors);
  if (!leaf) return new DomainError('body_invalid', 'The request is invalid.');
  const { path, error } = leaf;
  const constraints = error.constraints ?? {};
  if ('whitelistValidation' in constraints) {
    return new DomainError('parameter_unknown', `Received unknown parameter: ${path}`, { param: path });
  }
  const messages = Object.values(constraints).map((m) => m.replace(new RegExp(`^${error.property}\\b`), path));
  if (error.value === undefined || error.value === null) {
    if ('isDefined' in constraints || !('isOptional' in constraints)) {
      return new DomainError('parameter_missing', `Missing required parameter: ${path}. ${messages[0] ?? ''}`.trim(), {
        param: path,
      });
    }
  }
  return new DomainError('parameter_invalid', messages[0] ?? `${path} is invalid`, { param: path });
}

const isPlainObject = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

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
      validationError: { target: false, value: true },
      exceptionFactory: (errors: ValidationError[]) => validationErrorToDomain(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    const isDto = metatype !== undefined && ![String, Boolean, Number, Array, Object].includes(metatype as never);
    if (metadata.type === 'body' && isDto && !isPlainObject(value)) {
      throw new DomainError('body_invalid', 'The request body must be a JSON object.');
    }
    if (metadata.type === 'query' && isDto && (value === undefined || value === null)) value = {};
    return super.transform(value, metadata);
  }
}
