import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';

/**
 * Qdrant's query parameters, accepted on every route (docs/qdrant.md, "Consistency"):
 * writes are durable and visible to queries when acknowledged, so `wait` changes only the
 * status word; a read always answers from the committed state (`consistency`), `ordering`
 * and `timeout` have nothing to change here.
 */
export class QdrantParamsDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Writes: `completed` (true) or `acknowledged` (false); visible either way',
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  wait?: string;

  @ApiPropertyOptional({ enum: ['weak', 'medium', 'strong'], description: 'Accepted; writes of one table are serialised' })
  @IsOptional()
  @IsIn(['weak', 'medium', 'strong'])
  ordering?: string;

  @ApiPropertyOptional({ description: 'Seconds; accepted (requests run to completion)' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9]{1,9}$/, { message: 'timeout must be a number of seconds' })
  timeout?: string;

  @ApiPropertyOptional({ description: 'An integer, `majority`, `quorum` or `all`: accepted, reads are always of committed data' })
  @IsOptional()
  @IsString()
  @Matches(/^([0-9]{1,4}|majority|quorum|all)$/, { message: 'consistency must be an integer, majority, quorum or all' })
  consistency?: string;
}
