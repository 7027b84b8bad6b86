/**
 * Embeddings are stored as float32 little-endian bytes (4·dimension bytes per row): a
 * quarter of `real[]`'s per-element overhead, and read back without parsing.
 */
export function encodeEmbedding(values: readonly number[]): Uint8Array<ArrayBuffer> {
  const buf = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i], i * 4);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function decodeEmbedding(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.byteLength >>> 2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
