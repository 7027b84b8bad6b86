import { CopyBinaryDecoder } from './pg-copy-out';

/** PostgreSQL's binary COPY format: signature, flags, header extension, tuples, trailer. */
function copyBinary(rows: Buffer[][], extension = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4)];
  const u32 = Buffer.alloc(4);
  u32.writeUInt32BE(extension.length);
  parts.push(u32, extension);
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    parts.push(count);
    for (const field of row) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field.length);
      parts.push(length, field);
    }
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  return Buffer.concat(parts);
}

function feed(bytes: Buffer, size: number): CopyBinaryDecoder {
  const decoder = new CopyBinaryDecoder();
  for (let at = 0; at < bytes.length; at += size) decoder.push(bytes.subarray(at, at + size));
  return decoder;
}

describe('CopyBinaryDecoder', () => {
  const rows = [
    [Buffer.from('a'.repeat(64)), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))],
    [Buffer.from('b'), Buffer.alloc(0)],
  ];

  it.each([1, 3, 4, 19, 1000, 100_000])('decodes rows fed in pieces of %i bytes', (size) => {
    const decoder = feed(copyBinary(rows, Buffer.from('ext')), size);
    expect(decoder.done).toBe(true);
    expect(decoder.rows).toEqual(rows);
  });

  it('copies what it keeps: reusing the pieces afterwards changes nothing', () => {
    const bytes = copyBinary(rows);
    const decoder = feed(bytes, 500);
    bytes.fill(0);
    expect(decoder.rows).toEqual(rows);
  });

  it('is not done before the trailer, and refuses what is not binary COPY data or has a NULL', () => {
    const bytes = copyBinary(rows);
    expect(feed(bytes.subarray(0, bytes.length - 2), 64).done).toBe(false);
    expect(() => feed(Buffer.from('id\tdata\n'.repeat(4)), 64)).toThrow('not PostgreSQL binary COPY data');
    const withNull = copyBinary([[Buffer.from('x')]]);
    withNull.writeInt32BE(-1, 21);
    expect(() => feed(withNull, 64)).toThrow('NULL');
  });
});
