import { inspectInput } from '@app/platform';
import { Injectable, type PipeTransform } from '@nestjs/common';

/**
 * What the platform's validation pipe checks of every other body before a route reads it,
 * for the Qdrant-compatible bodies (read as they are, not as DTO classes): no NUL character
 * or lone surrogate in any string or key (PostgreSQL's text and jsonb refuse them: a payload
 * holding one was a 500 at the insert), no prototype keys, a bounded depth. One iterative walk.
 */
@Injectable()
export class QdrantBodyPipe implements PipeTransform<unknown, unknown> {
  transform(value: unknown): unknown {
    const problem = inspectInput(value, '');
    if (problem) throw problem;
    return value;
  }
}
