import 'reflect-metadata';
import { runService } from '@app/platform';
import { vectorService } from './service';

runService(vectorService).catch((err: unknown) => {
  process.stderr.write(`vector-api failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
