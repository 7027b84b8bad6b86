import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** One entry of `GET …/webhook-endpoints/event-types`. */
export interface EventTypeJson {
  object: string;
  type: string;
  description: string;
  schema: Record<string, unknown>;
  example: { id: string; event: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * Compiles every kind's JSON Schema (strict Ajv, draft 2020-12, with formats) and returns a
 * checker: `check(event, data)` → the validation errors as text, '' when valid.
 */
export function catalogueChecker(kinds: readonly EventTypeJson[]): (event: string, data: unknown) => string {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>(kinds.map((k) => [k.type, ajv.compile(k.schema)]));
  return (event, data) => {
    const validate = validators.get(event);
    if (validate === undefined) return `no schema for ${event}`;
    return validate(data) ? '' : ajv.errorsText(validate.errors);
  };
}
