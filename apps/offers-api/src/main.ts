import 'reflect-metadata';
import { runService } from '@app/platform';
import { offersService } from './service';

runService(offersService).catch((err: unknown) => {
  process.stderr.write(`offers-api failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
