import type { Closing } from '@app/platform';
import type { PaymentEventData, PaymentEvents, PaymentEventType } from '../../../apps/payments-api/src/common/events';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type { StripeEventInput } from '../../../apps/payments-api/src/compat/stripe/stripe-event-types';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

export interface EmittedEvent {
  readonly tenant: Tenant;
  /** The /v2 kind; null for an event of /v1 only. */
  readonly event: PaymentEventType | null;
  /** The payload as the outbox stores it (a JSON copy taken at emit time). */
  readonly data: unknown;
  /** The /v1 side (Stripe's type and object), if the event has one. */
  readonly stripe?: StripeEventInput;
}

/** The outbox: events are written with the change's transaction (its Closing) and vanish with its rollback. */
export class FakePaymentEvents implements Surface<PaymentEvents> {
  readonly emitted: EmittedEvent[] = [];
  private seq = 0;

  constructor(private readonly transactions: FakeTransactionRunner) {}

  emit<K extends PaymentEventType>(
    closing: Closing,
    tenant: Tenant,
    event: K,
    data: PaymentEventData<K>,
    stripe?: StripeEventInput,
  ): string {
    return this.record(closing, {
      tenant,
      event,
      data: JSON.parse(JSON.stringify(data)) as unknown,
      ...(stripe === undefined ? {} : { stripe: JSON.parse(JSON.stringify(stripe)) as StripeEventInput }),
    });
  }

  emitStripe(closing: Closing, tenant: Tenant, stripe: StripeEventInput): string {
    return this.record(closing, {
      tenant,
      event: null,
      data: null,
      stripe: JSON.parse(JSON.stringify(stripe)) as StripeEventInput,
    });
  }

  private record(closing: Closing, entry: EmittedEvent): string {
    this.transactions.write(closing, () => this.emitted.splice(this.emitted.indexOf(entry), 1));
    this.emitted.push(entry);
    return `evt_fake_${++this.seq}`;
  }
}
