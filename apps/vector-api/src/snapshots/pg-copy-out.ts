import type { Connection, Submittable } from 'pg';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Decodes PostgreSQL's binary COPY format (`COPY … TO STDOUT (FORMAT binary)`) as it arrives,
 * in pieces split anywhere: each field is copied once, straight into a buffer of its own
 * length, so a row of one 8 MiB bytea costs 8 MiB of memory and one copy. Every field is
 * returned as the raw bytes of its type's binary form (bytea: the bytes; text, char: the
 * characters in the database encoding). NULL fields are refused: the columns read are NOT NULL.
 */
export class CopyBinaryDecoder {
  readonly rows: Buffer[][] = [];
  private state: 'signature' | 'extension' | 'count' | 'length' | 'field' | 'done' = 'signature';
  private small = Buffer.alloc(SIGNATURE.length + 8);
  private smallFilled = 0;
  private skip = 0;
  private fieldsLeft = 0;
  private row: Buffer[] = [];
  private field: Buffer = Buffer.alloc(0);
  private fieldFilled = 0;

  get done(): boolean {
    return this.state === 'done';
  }

  push(piece: Buffer): void {
    let offset = 0;
    while (offset < piece.length) {
      if (this.state === 'done') throw new Error('COPY binary data after its trailer');
      if (this.state === 'extension') {
        const take = Math.min(this.skip, piece.length - offset);
        this.skip -= take;
        offset += take;
        if (this.skip === 0) this.state = 'count';
        continue;
      }
      if (this.state === 'field') {
        const take = Math.min(this.field.length - this.fieldFilled, piece.length - offset);
        piece.copy(this.field, this.fieldFilled, offset, offset + take);
        this.fieldFilled += take;
        offset += take;
        if (this.fieldFilled === this.field.length) this.endField();
        continue;
      }
      const need = this.state === 'signature' ? SIGNATURE.length + 8 : this.state === 'count' ? 2 : 4;
      const take = Math.min(need - this.smallFilled, piece.length - offset);
      piece.copy(this.small, this.smallFilled, offset, offset + take);
      this.smallFilled += take;
      offset += take;
      if (this.smallFilled === need) {
        this.smallFilled = 0;
        this.header(need);
      }
    }
  }

  private header(size: number): void {
    const bytes = this.small.subarray(0, size);
    switch (this.state) {
      case 'signature': {
        if (!bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not PostgreSQL binary COPY data');
        this.skip = bytes.readUInt32BE(SIGNATURE.length + 4);
        this.state = this.skip > 0 ? 'extension' : 'count';
        return;
      }
      case 'count': {
        const count = bytes.readInt16BE(0);
        if (count === -1) {
          this.state = 'done';
          return;
        }
        this.row = [];
        this.fieldsLeft = count;
        if (count === 0) this.rows.push(this.row);
        else this.state = 'length';
        return;
      }
      case 'length': {
        const length = bytes.readInt32BE(0);
        if (length < 0) throw new Error('NULL in COPY binary data of a NOT NULL column');
        this.field = Buffer.allocUnsafe(length);
        this.fieldFilled = 0;
        if (length === 0) this.endField();
        else this.state = 'field';
        return;
      }
      case 'extension':
      case 'field':
      case 'done':
        throw new Error(`COPY binary decoder read a header in state ${this.state}`);
    }
  }

  private endField(): void {
    this.row.push(this.field);
    this.fieldsLeft -= 1;
    if (this.fieldsLeft > 0) {
      this.state = 'length';
      return;
    }
    this.rows.push(this.row);
    this.state = 'count';
  }
}

/**
 * `COPY (…) TO STDOUT (FORMAT binary)` on one pg client, resolved with the decoded rows.
 * node-postgres decodes the binary result format of a normal query as UTF-8 text (useless for
 * bytea) and the text format costs a hex encoding on the server and a decoding here; COPY
 * sends bytea as its raw bytes. The query text is sent as is: callers build it from values
 * they have validated (no parameters in COPY).
 */
export class CopyOutQuery implements Submittable {
  readonly done: Promise<Buffer[][]>;
  private readonly decoder = new CopyBinaryDecoder();
  private failure: Error | undefined;
  private resolve!: (rows: Buffer[][]) => void;
  private reject!: (err: Error) => void;
  private settled = false;

  constructor(private readonly text: string) {
    this.done = new Promise<Buffer[][]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: Connection): void {
    connection.query(this.text);
  }

  /** `msg.chunk` is a view of the protocol parser's buffer, valid only during this call: the decoder copies it. */
  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failure) return;
    try {
      this.decoder.push(msg.chunk);
    } catch (err) {
      this.failure = err as Error;
    }
  }

  /** A server error (then ReadyForQuery follows) or a dead connection (nothing follows): settle now. */
  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    if (this.failure) this.settle(this.failure);
    else if (!this.decoder.done) this.settle(new Error('COPY ended before its trailer'));
    else this.settle(undefined);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('COPY FROM is not what this query does');
  }

  private settle(err: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    if (err) this.reject(err);
    else this.resolve(this.decoder.rows);
  }
}
