import {
  type ChargeRequest,
  type ChargeResult,
  PaymentProcessor,
} from '../../../apps/payments-api/src/processor/payment-processor';
import { TestModeProcessor } from '../../../apps/payments-api/src/processor/test-mode.processor';

/** The real test-mode outcomes, with every charge recorded. */
export class RecordingTestModeProcessor extends TestModeProcessor {
  readonly charges: ChargeRequest[] = [];

  override charge(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    return super.charge(request);
  }
}

/** A live processor that answers every charge with one outcome. */
export class FakeLiveProcessor extends PaymentProcessor {
  readonly charges: ChargeRequest[] = [];

  constructor(private readonly outcome: ChargeResult = { status: 'succeeded' }) {
    super();
  }

  charge(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    return Promise.resolve(this.outcome);
  }

  capture(): Promise<void> {
    return Promise.resolve();
  }

  release(): Promise<void> {
    return Promise.resolve();
  }
}
