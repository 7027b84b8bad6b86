import { FakeClock } from '../fake-clock';
import { FakeCustomersRepository } from './fake-customers.repository';
import { FakePaymentEvents } from './fake-payment-events';
import { FakePaymentIntentSides } from './fake-payment-intent-sides';
import { FakePaymentsRepository } from './fake-payments.repository';
import { FakeRefundsRepository } from './fake-refunds.repository';
import { FakeTransactionRunner } from '../fake-transaction-runner';

export { fake, type Surface } from '../typed-fake';
export { FakeClock } from '../fake-clock';
export { FakeCustomersRepository } from './fake-customers.repository';
export { FakePaymentEvents, type EmittedEvent } from './fake-payment-events';
export { FakePaymentIntentSides } from './fake-payment-intent-sides';
export { FakePaymentsRepository } from './fake-payments.repository';
export { FakeLiveProcessor, RecordingTestModeProcessor } from './fake-processors';
export { FakeRefundsRepository } from './fake-refunds.repository';
export { type FakeRun, FakeTransactionRunner } from '../fake-transaction-runner';
export { fakeIdempotency } from '../fake-idempotency';

/** One in-memory payments-api store: the repositories share the runner (transactions) and the clock. */
export interface PaymentsFakes {
  readonly clock: FakeClock;
  readonly transactions: FakeTransactionRunner;
  readonly events: FakePaymentEvents;
  readonly customers: FakeCustomersRepository;
  readonly payments: FakePaymentsRepository;
  readonly refunds: FakeRefundsRepository;
  readonly intentSides: FakePaymentIntentSides;
}

export function paymentsFakes(): PaymentsFakes {
  const clock = new FakeClock();
  const transactions = new FakeTransactionRunner();
  return {
    clock,
    transactions,
    events: new FakePaymentEvents(transactions),
    customers: new FakeCustomersRepository(transactions, clock),
    payments: new FakePaymentsRepository(transactions, clock),
    refunds: new FakeRefundsRepository(transactions, clock),
    intentSides: new FakePaymentIntentSides(transactions),
  };
}
