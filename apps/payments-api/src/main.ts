import 'reflect-metadata';
import { runService } from '@app/platform';
import { paymentsService } from './service';

runService(paymentsService).catch((err: unknown) => {
  process.stderr.write(`payments-api failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
