import type { ValidationArguments, ValidationError } from 'class-validator';
import { type ValidationMetadata, validationMetadataOf } from './validation-metadata';

/**
 * One message per invalid field, about the rule it actually broke, worded for the caller
 * and naming the field by its path (`rows[3].embedding`). class-validator reports every
 * failing constraint of a field in reverse declaration order, each in its own wording
 * ("customer_id must be shorter than or equal to 64 characters" for a number); the pipe
 * answers one: the first failing one in this order — the value's type, then the values or
 * format it may take, then its size or range — so a number given for a string is "must be
 * a string", never a length rule.
 */
const ORDER: readonly string[] = [
  // type
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'nestedValidation',
  // allowed values and formats (custom validators rank here too)
  'isIn',
  'isEnum',
  'isEmail',
  'matches',
  // size and range
  'isPositive',
  'min',
  'max',
  'isLength',
  'minLength',
  'maxLength',
  'arrayMinSize',
  'arrayMaxSize',
];
/** A constraint not listed above (a custom validator: isTimestamp, isMetadata...) ranks with the formats. */
const CUSTOM_RANK = ORDER.indexOf('matches');

const rank = (name: string): number => {
  const at = ORDER.indexOf(name);
  return at < 0 ? CUSTOM_RANK : at;
};

/** Characters as validator.js's isLength counts them (a surrogate pair is one). */
const characters = (value: string): number => Array.from(value).length;

/** The enumeration a value may take, as listed in a message. */
const listOf = (values: unknown): string => (Array.isArray(values) ? values : Object.values(values ?? {})).map(String).join(', ');

/**
 * The message for constraint `name` with its arguments, about `value` at `path`, in the
 * platform's wording; undefined for a constraint it has no wording for (its own message is used).
 */
function platformMessage(name: string, path: string, value: unknown, args: readonly unknown[]): string | undefined {
  const [first, second] = args;
  switch (name) {
    case 'isString':
      return `${path} must be a string.`;
    case 'isInt':
      return `${path} must be an integer.`;
    case 'isNumber':
      return `${path} must be a number.`;
    case 'isBoolean':
      return `${path} must be a boolean (true or false).`;
    case 'isArray':
      return `${path} must be an array.`;
    case 'isObject':
      return `${path} must be an object.`;
    case 'isIn':
      return `${path} must be one of: ${listOf(first)}.`;
    case 'isEnum':
      return `${path} must be one of: ${listOf(second ?? first)}.`;
    case 'isEmail':
      return `${path} must be an email address.`;
    case 'matches':
      return `${path} must match the pattern ${String(first)}.`;
    case 'isPositive':
      return `${path} must be greater than 0.`;
    case 'min':
      return `${path} must be at least ${String(first)}.`;
    case 'max':
      return `${path} must be at most ${String(first)}.`;
    case 'isLength':
    case 'minLength':
    case 'maxLength': {
      const min = name === 'maxLength' ? undefined : (first as number | undefined);
      const max = name === 'isLength' ? (second as number | undefined) : name === 'maxLength' ? (first as number) : undefined;
      const length = typeof value === 'string' ? characters(value) : 0;
      if (min !== undefined && min !== null && length < min) {
        return min === 1 ? `${path} must not be empty.` : `${path} must be at least ${min} characters long.`;
      }
      return `${path} must be at most ${String(max)} characters long.`;
    }
    case 'arrayMinSize':
      return first === 1 ? `${path} must not be empty.` : `${path} must have at least ${String(first)} items.`;
    case 'arrayMaxSize':
      return `${path} must have at most ${String(first)} items.`;
    default:
      return undefined;
  }
}

/** The validation metadata behind each constraint name of `property` on `target`'s class. */
function metadataOf(target: object | undefined, property: string): Map<string, ValidationMetadata> {
  const byName = new Map<string, ValidationMetadata>();
  if (!target || typeof target !== 'object') return byName;
  for (const metadata of validationMetadataOf(target.constructor as new () => unknown).get(property) ?? []) {
    // (the constraint's name is the key class-validator reports it under; nested validation has none)
    const name = metadata.name ?? metadata.type;
    if (!byName.has(name)) byName.set(name, metadata);
  }
  return byName;
}

/** `message` (class-validator's, or a DTO's own) about `property`, re-pointed at `path` and ending in a full stop. */
function ownMessage(message: string, property: string, path: string): string {
  let text = message.startsWith(`${property} `) ? `${path}${message.slice(property.length)}` : message;
  text = text.replace(/^each value in /, `every item of `);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Whether `element` passes `metadata`'s constraint (for `each` rules); undefined when that cannot be told. */
function passes(metadata: ValidationMetadata, element: unknown, target: object, property: string): boolean | undefined {
  const Constraint = metadata.constraintCls as (new () => { validate(v: unknown, a: ValidationArguments): unknown }) | undefined;
  if (typeof Constraint !== 'function') return undefined;
  const args: ValidationArguments = {
    value: element,
    constraints: metadata.constraints ?? [],
    targetName: target.constructor.name,
    object: target,
    property,
  };
  const result = new Constraint().validate(element, args);
  return typeof result === 'boolean' ? result : undefined;
}

export interface FieldProblem {
  /** The offending field's path: the array item's for a rule on each item (`ids[2]`). */
  readonly path: string;
  readonly message: string;
}

/**
 * The one message for a field whose value is present but invalid: its first failing
 * constraint in ORDER, worded by `platformMessage` unless the DTO gave that constraint a
 * message of its own. A rule on each item of an array names the first offending item.
 */
export function explainInvalid(error: ValidationError, path: string): FieldProblem {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  // class-validator lists them in reverse declaration order: ties go to the one declared first
  const declared = [...names].reverse();
  const name = [...declared].sort((a, b) => rank(a) - rank(b))[0] ?? '';
  const metadata = metadataOf(error.target, error.property).get(name);
  const reported = constraints[name] ?? `${error.property} is invalid`;
  const value: unknown = error.value;

  if (name === 'nestedValidation') {
    // reported on the array for a rule on each item, or on the item itself (`rows[1]`)
    const index = Array.isArray(value)
      ? value.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item))
      : -1;
    const at = index >= 0 ? `${path}[${index}]` : path;
    return { path: at, message: `${at} must be an object.` };
  }
  if (metadata?.each && Array.isArray(value) && error.target) {
    const target = error.target;
    const index = value.findIndex((item) => passes(metadata, item, target, error.property) === false);
    if (index >= 0) {
      const itemPath = `${path}[${index}]`;
      const worded =
        metadata.message === undefined ? platformMessage(name, itemPath, value[index], metadata.constraints ?? []) : undefined;
      return { path: itemPath, message: worded ?? ownMessage(reported, error.property, path) };
    }
  }
  if (metadata && metadata.message === undefined && !metadata.each) {
    const worded = platformMessage(name, path, value, metadata.constraints ?? []);
    if (worded !== undefined) return { path, message: worded };
  }
  return { path, message: ownMessage(reported, error.property, path) };
}
