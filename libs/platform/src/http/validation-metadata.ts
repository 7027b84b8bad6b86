import { getMetadataStorage } from 'class-validator';

/** One rule of class-validator's metadata storage (the type is not exported). */
export type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * class-validator's rules of a class (its own and inherited, every group), by property: what
 * the validation pipe enforces, read by the pipe's messages (validation-messages.ts) and by
 * the OpenAPI schemas derived from them (docs/validator-schemas.ts).
 */
export function validationMetadataOf(type: abstract new (...args: never[]) => unknown): Map<string, ValidationMetadata[]> {
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(type, '', true, false)) {
    byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
  }
  return byProperty;
}
