import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export type Metadata = Record<string, string>;

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

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
