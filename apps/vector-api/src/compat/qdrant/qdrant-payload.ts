import { FilterError, type Metadata, type MetadataValue, parseMetadata } from '../../engine/filter';
import { measureJson } from '../../engine/json-size';
import { VectorError } from '../../errors';
import { describeOverLimit, type MetadataLimits } from '../../tables/metadata-size';

/**
 * Payload edits of the Qdrant-compatible API (set: merge top-level keys; overwrite; delete
 * keys), checked against the metadata rules and limits. Minimal versions: the metadata
 * model's own helpers (row-rules.ts) replace them once nested payloads and nulls land.
 */

function checked(value: unknown, path: string): Metadata {
  try {
    return parseMetadata(value, path);
  } catch (err) {
    if (err instanceof FilterError) throw new VectorError('parameter_invalid', err.message, { param: err.path });
    throw err;
  }
}

function within(metadata: Metadata, limits: MetadataLimits): Metadata {
  const size = measureJson(metadata, limits);
  if (size.over)
    throw new VectorError('metadata_too_large', `The payload ${describeOverLimit(size, limits)}.`, { param: 'payload' });
  return metadata;
}

/** The payload with `patch`'s top-level keys set (Qdrant's set payload). */
export function setPayloadKeys(current: Metadata, patch: Record<string, unknown>, limits: MetadataLimits): Metadata {
  const merged: Record<string, MetadataValue> = { ...current, ...checked(patch, 'payload') };
  return within(merged, limits);
}

/** The payload without these top-level keys (Qdrant's delete payload). */
export function deletePayloadKeys(current: Metadata, keys: readonly string[], limits: MetadataLimits): Metadata {
  const removed = new Set(keys);
  const kept: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(current)) if (!removed.has(key)) kept[key] = value;
  return within(kept, limits);
}

/** A whole new payload (Qdrant's overwrite payload and the payload of an upserted point). */
export function checkPayload(payload: unknown, limits: MetadataLimits, path = 'payload'): Metadata {
  return within(checked(payload, path), limits);
}
