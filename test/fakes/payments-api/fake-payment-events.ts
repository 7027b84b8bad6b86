import type { PrismaTx } from '@app/platform';
import type { PaymentEvents, PaymentEventType } from '../../../apps/payments-api/src/common/events';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type { Surface } from '../typed-fake';
import type { FakeTransactionRunner } from './fake-transaction-runner';

export interface EmittedEvent {
  readonly tenant: Tenant;
  readonly event: PaymentEventType;
  /** The payload as the outbox stores it (a JSON copy taken at emit time). */
  readonly data: unknown;
}

/** The outbox: events are written inside the change's transaction and vanish with its rollback. */
export class FakePaymentEvents implements Surface<PaymentEvents> {
  readonly emitted: EmittedEvent[] = [];
  private seq = 0;

  constructor(private readonly transactions: FakeTransactionRunner) {}

  emit(tx: PrismaTx, tenant: Tenant, event: PaymentEventType, data: object): Promise<string> {
    const entry: EmittedEvent = { tenant, event, data: JSON.parse(JSON.stringify(data)) as unknown };
    this.transactions.write(tx, () => this.emitted.splice(this.emitted.indexOf(entry), 1));
    this.emitted.push(entry);
    return Promise.resolve(`evt_fake_${++this.seq}`);
  }
}
