import { Clock } from '@app/platform';
import { VectorConfig } from '../../../apps/vector-api/src/config';
import { QueryLatency } from '../../../apps/vector-api/src/tables/query-latency';
import { TablePartition } from '../../../apps/vector-api/src/tables/table-partition';
import { TablesService } from '../../../apps/vector-api/src/tables/tables.service';
import { fake } from '../typed-fake';
import { FakeLiveTables } from './fake-live-tables';
import { FakeTablesRepository } from './fake-tables-repository';
import { FakeTransactionRunner } from '../fake-transaction-runner';

export { type AppliedChange, FakeLiveTables } from './fake-live-tables';
export { FakeTablesRepository } from './fake-tables-repository';
export { FakeTransactionRunner } from '../fake-transaction-runner';

export interface TablesServiceWithFakes {
  readonly service: TablesService;
  readonly repo: FakeTablesRepository;
  readonly live: FakeLiveTables;
  readonly transactions: FakeTransactionRunner;
}

/**
 * A TablesService over in-memory fakes of its repository, live tables and transaction runner;
 * `partition` (`i/n`) is its VECTOR_PARTITION (unset: every table).
 */
export function tablesServiceWithFakes(partition?: string): TablesServiceWithFakes {
  const repo = new FakeTablesRepository();
  const transactions = new FakeTransactionRunner(repo);
  repo.assertOpen = (tx) => transactions.assertOpen(tx);
  const live = new FakeLiveTables();
  const config = Object.assign(new VectorConfig(), { VECTOR_PARTITION: partition });
  const tablePartition = new TablePartition(config, fake(repo), fake(live));
  const service = new TablesService(
    fake(repo),
    fake(live),
    fake(transactions),
    tablePartition,
    new QueryLatency(new Clock()),
    config,
  );
  return { service, repo, live, transactions };
}
