import type { ApiPropertyOptions } from '@nestjs/swagger';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export type Metadata = Record<string, string>;

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/** METADATA_LIMITS as OpenAPI says them (OpenAPI 3.0 has no keyword for the length of a key: the description has it). */
export const METADATA_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  description: `Up to ${METADATA_LIMITS.keys} keys of 1 to ${METADATA_LIMITS.keyLength} characters, each with a string of at most ${METADATA_LIMITS.valueLength} characters`,
};

/** Stripe's metadata rules: up to 50 string keys of ≤ 40 characters with string values of ≤ 500. */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be an object of at most ${METADATA_LIMITS.keys} keys (≤ ${METADATA_LIMITS.keyLength} characters) with string values (≤ ${METADATA_LIMITS.valueLength} characters)`,
        ...options,
      },
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= METADATA_LIMITS.keys &&
            entries.every(
              ([k, v]) =>
                k.length > 0 &&
                k.length <= METADATA_LIMITS.keyLength &&
                typeof v === 'string' &&
                v.length <= METADATA_LIMITS.valueLength,
            )
          );
        },
      },
    });
  };
}
