import type { ApiPropertyOptions } from '@nestjs/swagger';
import { PaymentsError } from '../errors';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export type Metadata = Record<string, string>;
/** An update's metadata: a key set to "" or null is removed (Stripe's merge). */
export type MetadataUpdate = Record<string, string | null>;

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/** METADATA_LIMITS as OpenAPI says them (OpenAPI 3.0 has no keyword for the length of a key: the description has it). */
export const METADATA_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  description: `Up to ${METADATA_LIMITS.keys} keys of 1 to ${METADATA_LIMITS.keyLength} characters, each with a string of at most ${METADATA_LIMITS.valueLength} characters`,
};

/** METADATA_SCHEMA for an update: a value may be null (or "") to remove its key. */
export const METADATA_UPDATE_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  maxProperties: METADATA_LIMITS.keys,
  additionalProperties: { type: 'string', nullable: true, maxLength: METADATA_LIMITS.valueLength },
  description: `Merged into the stored metadata: a key set to "" or null is removed; metadata null removes every key. Up to ${METADATA_LIMITS.keys} keys of 1 to ${METADATA_LIMITS.keyLength} characters, each with a string of at most ${METADATA_LIMITS.valueLength} characters`,
};

/**
 * Stripe's update semantics: keys merge into `current`; a key set to "" or null is removed;
 * `null` for the whole metadata removes every key. The result must still be within
 * METADATA_LIMITS.keys (false when it is not).
 */
export function mergeMetadata(current: Metadata, update: MetadataUpdate | null): Metadata | false {
  if (update === null) return {};
  const merged: Metadata = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === null || v === '') delete merged[k];
    else merged[k] = v;
  }
  return Object.keys(merged).length <= METADATA_LIMITS.keys ? merged : false;
}

/** The 400 for an update whose merge would leave more than METADATA_LIMITS.keys keys. */
export function tooManyKeys(): PaymentsError {
  return new PaymentsError('parameter_invalid', `metadata may hold at most ${METADATA_LIMITS.keys} keys once merged`, {
    param: 'metadata',
  });
}

/**
 * Stripe's metadata rules: up to 50 string keys of ≤ 40 characters with string values of ≤ 500.
 * `update: true` also accepts a null value (remove that key).
 */
export function IsMetadata(options?: ValidationOptions & { update?: boolean }): PropertyDecorator {
  const { update = false, ...validationOptions } = options ?? {};
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be an object of at most ${METADATA_LIMITS.keys} keys (≤ ${METADATA_LIMITS.keyLength} characters) with string values (≤ ${METADATA_LIMITS.valueLength} characters)`,
        ...validationOptions,
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
                ((update && v === null) || (typeof v === 'string' && v.length <= METADATA_LIMITS.valueLength)),
            )
          );
        },
      },
    });
  };
}
