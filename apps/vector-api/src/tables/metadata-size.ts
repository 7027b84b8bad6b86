import type { JsonLimits, JsonSize } from '../engine/json-size';

/**
 * The per-row metadata limits (VECTOR_METADATA_MAX_BYTES and VECTOR_METADATA_MAX_KEYS;
 * platform contract, third round, "Limits that protect every tenant"), measured by
 * `measureJson` (engine/json-size.ts): the UTF-8 bytes of the metadata's JSON text and the
 * keys of every object in it.
 */
export type MetadataLimits = JsonLimits;

/** What the 400 says of a metadata over a limit: the measure and the setting that bounds it. */
export function describeOverLimit(size: JsonSize, limits: MetadataLimits): string {
  return size.over === 'keys'
    ? `has more than ${limits.maxKeys} keys (VECTOR_METADATA_MAX_KEYS, counted over the whole tree)`
    : `is more than ${limits.maxBytes} bytes as JSON (VECTOR_METADATA_MAX_BYTES)`;
}
