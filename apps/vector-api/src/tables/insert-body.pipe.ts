import { PlatformValidationPipe } from '@app/platform';
import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { InsertVectorsDto } from './dto/vectors.dto';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The raw request body, without the global validation pipe (which does not process custom
 * parameter decorators). Used with InsertBodyPipe only.
 */
export const RawBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<FastifyRequest>().body,
);

/**
 * Validates an insert body exactly like the platform's pipe, but with each embedding
 * lifted out first and put back afterwards. Nest's ValidationPipe and class-transformer
 * walk every array element several times (gap closing, prototype-key stripping, binary
 * detection, copying); for 1000 × 4096 numbers that took ~16 s per request. Embeddings
 * are checked element by element in TablesService instead (finite numbers, dimension),
 * which also lets one error name every offending row.
 */
@Injectable()
export class InsertBodyPipe implements PipeTransform<unknown, Promise<InsertVectorsDto>> {
  private readonly inner = new PlatformValidationPipe();

  async transform(value: unknown): Promise<InsertVectorsDto> {
    const embeddings = new Map<number, unknown[]>();
    let light = value;
    if (isPlainObject(value) && Array.isArray(value.rows)) {
      const rows: unknown[] = value.rows;
      light = {
        ...value,
        rows: rows.map((row, i) => {
          if (!isPlainObject(row) || !Array.isArray(row.embedding)) return row;
          embeddings.set(i, row.embedding);
          return { ...row, embedding: [] };
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
    });
    return dto;
  }
}
