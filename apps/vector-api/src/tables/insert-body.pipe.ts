import { inspectInput, PlatformValidationPipe } from '@app/platform';
import { Injectable, type PipeTransform } from '@nestjs/common';
import { InsertVectorsDto } from './dto/vectors.dto';
import { isPlainObject, refuseExtraKeys } from './raw-body';

const INSERT_FIELDS: ReadonlySet<string> = new Set(['rows']);
const ROW_FIELDS: ReadonlySet<string> = new Set(['id', 'embedding', 'metadata']);

/**
 * Validates an insert body exactly like the platform's pipe, but with each embedding and
 * each metadata object lifted out first and put back afterwards. Nest's ValidationPipe and
 * class-transformer walk every array element several times (gap closing, prototype-key
 * stripping, binary detection, copying); for 1000 × 4096 numbers that took ~16 s per
 * request. Copying an object costs them O(keys²): one row's metadata with 100,000 keys held
 * the event loop for seconds. Embeddings are checked element by element in TablesService
 * instead (finite numbers, dimension), which also lets one error name every offending row;
 * metadata gets the platform's input checks here (iteratively, linear) and its value rules
 * in TablesService (parseMetadata). Objects with more keys than their DTO has fields are
 * refused before the pipe copies them.
 */
@Injectable()
export class InsertBodyPipe implements PipeTransform<unknown, Promise<InsertVectorsDto>> {
  private readonly inner = new PlatformValidationPipe();

  async transform(value: unknown): Promise<InsertVectorsDto> {
    const embeddings = new Map<number, unknown[]>();
    const metadata = new Map<number, Record<string, unknown>>();
    let light = value;
    if (isPlainObject(value)) refuseExtraKeys(value, INSERT_FIELDS);
    if (isPlainObject(value) && Array.isArray(value.rows)) {
      const rows: unknown[] = value.rows;
      light = {
        ...value,
        rows: rows.map((row, i) => {
          if (!isPlainObject(row)) return row;
          refuseExtraKeys(row, ROW_FIELDS, `rows[${i}]`);
          let lifted = row;
          if (Array.isArray(row.embedding)) {
            embeddings.set(i, row.embedding);
            lifted = { ...lifted, embedding: [] };
          }
          if (isPlainObject(row.metadata)) {
            const problem = inspectInput(row.metadata, `rows[${i}].metadata`);
            if (problem) throw problem;
            metadata.set(i, row.metadata);
            lifted = { ...lifted, metadata: {} };
          }
          return lifted;
        }),
      };
    }
    const dto = (await this.inner.transform(light, {
      type: 'body',
      metatype: InsertVectorsDto,
      data: undefined,
    })) as InsertVectorsDto;
    dto.rows.forEach((row, i) => {
      const embedding = embeddings.get(i);
      if (embedding !== undefined) row.embedding = embedding;
      const meta = metadata.get(i);
      if (meta !== undefined) row.metadata = meta;
    });
    return dto;
  }
}
