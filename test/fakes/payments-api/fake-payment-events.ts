import type { Closing } from '@app/platform';
import type { PaymentEventData, PaymentEvents, PaymentEventType } from '../../../apps/payments-api/src/common/events';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

export interface EmittedEvent {
  readonly tenant: Tenant;
  readonly event: PaymentEventType;
  /** The payload as the outbox stores it (a JSON copy taken at emit time). */
  readonly data: unknown;
}

/** The outbox: events are written with the change's transaction (its Closing) and vanish with its rollback. */
export class FakePaymentEvents implements Surface<PaymentEvents> {
  readonly emitted: EmittedEvent[] = [];
  private seq = 0;

  constructor(private readonly transactions: FakeTransactionRunner) {}

  emit<K extends PaymentEventType>(closing: Closing, tenant: Tenant, event: K, data: PaymentEventData<K>): string {
    const entry: EmittedEvent = { tenant, event, data: JSON.parse(JSON.stringify(data)) as unknown };
    this.transactions.write(closing, () => this.emitted.splice(this.emitted.indexOf(entry), 1));
    this.emitted.push(entry);
    return `evt_fake_${++this.seq}`;
  }
}
