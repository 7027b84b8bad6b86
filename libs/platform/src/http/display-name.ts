import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Characters a name must not hold: they are invisible, or change how the text around them is
 * shown, so a name could pass for another (`\u202Egnp.exe` shows as `exe.png`).
 *
 * - C0 controls U+0000–U+001F (tab and newlines included), DEL U+007F and C1 controls
 *   U+0080–U+009F;
 * - bidirectional controls: the marks U+200E, U+200F and U+061C, the embeddings and overrides
 *   U+202A–U+202E, the isolates U+2066–U+2069;
 * - other invisible format characters that have no place in a label: zero-width space U+200B,
 *   word joiner and invisible operators U+2060–U+2064, the deprecated format controls
 *   U+206A–U+206F, the byte order mark U+FEFF, the line and paragraph separators U+2028 and
 *   U+2029, and the interlinear annotation controls U+FFF9–U+FFFB.
 *
 * Zero-width (non-)joiners U+200C and U+200D stay allowed: scripts such as Persian and emoji
 * sequences need them, and they do not reorder text.
 */
export const NAME_FORBIDDEN_CHARACTERS =
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/;

/** The same rule as a JSON Schema `pattern` (the OpenAPI document's, docs/validator-schemas.ts). */
export const DISPLAY_NAME_PATTERN = `^[^${NAME_FORBIDDEN_CHARACTERS.source.slice(1, -1)}]*$`;

export const IS_DISPLAY_NAME = 'isDisplayName';

/** `U+202E`: how a message names a character (never echoing it, which would reorder the message itself). */
const codePoint = (character: string): string =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A name or label a person reads (an OAuth client's, a token's, an API key's, a tenant's):
 * a string without control, bidirectional or other invisible format characters
 * (NAME_FORBIDDEN_CHARACTERS). Other rules (type, length) stay the field's own. The one
 * validator every such field uses: 400 `parameter_invalid` naming the field and the character.
 */
export function IsDisplayName(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: IS_DISPLAY_NAME,
      // read by the OpenAPI document: `pattern`
      constraints: [DISPLAY_NAME_PATTERN],
      validator: {
        // a non-string is left to the field's IsString
        validate: (value: unknown) => typeof value !== 'string' || !NAME_FORBIDDEN_CHARACTERS.test(value),
        defaultMessage: (args) => {
          const value: unknown = args?.value;
          const found = typeof value === 'string' ? NAME_FORBIDDEN_CHARACTERS.exec(value) : null;
          const which = found ? ` (${codePoint(found[0])} at character ${found.index})` : '';
          return `${args?.property ?? 'value'} must not contain control, bidirectional or invisible formatting characters${which}`;
        },
      },
    },
    validationOptions,
  );
}
