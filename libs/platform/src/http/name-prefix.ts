import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsDisplayName } from './display-name';

/** The longest `name_prefix`: as long as the longest name a tenant can have (its create DTO's `Length(1, 200)`). */
export const NAME_PREFIX_MAX_LENGTH = 200;

/**
 * A list's `name_prefix` query parameter: 1–200 characters of a display name (no control,
 * bidirectional or invisible characters: no name holds them, IsDisplayName); longer or empty
 * → 400 `parameter_invalid`. Matched case-insensitively against the start of the name, with
 * `%`, `_` and `\` meaning themselves (likePrefixPattern).
 */
export function NamePrefix(example: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description:
        'Only those whose name starts with this text, ignoring case (`%`, `_` and `\\` are plain characters, not wildcards)',
      minLength: 1,
      maxLength: NAME_PREFIX_MAX_LENGTH,
      example,
    }),
    IsOptional(),
    IsString(),
    Length(1, NAME_PREFIX_MAX_LENGTH),
    IsDisplayName(),
  );
}

/**
 * The LIKE pattern (default escape character `\`) that matches the strings starting with
 * `prefix`: its `\`, `%` and `_` escaped, then `%`. Used as `lower(name) LIKE lower(pattern)`,
 * which a `lower(name) text_pattern_ops` index serves as a range scan.
 */
export function likePrefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
