import { type JobMap, type QueueRegistry, registerErrorCodes, type TransactionRunner, type TypedQueue } from '@app/platform';
import type { Job } from 'bullmq';
import { fake, paymentsFakes, type PaymentsFakes, RecordingTestModeProcessor } from '../../../../test/fakes/payments-api';
import { rejection } from '../../../../test/fakes/rejection';
import { partialFake } from '../../../../test/fakes/typed-fake';
import type { PaymentEvents } from '../common/events';
import type { Tenant } from '../common/tenant';
import type { PaymentsConfig } from '../config';
import { PAYMENTS_ERRORS } from '../errors';
import type { PaymentIntentSides } from '../payment-intents/payment-intent-sides';
import { AuthorizationsService } from './authorizations.service';
import type { PaymentsRepository } from './payments.repository';

const shop: Tenant = { accountId: 'acct_shop', mode: 'test' };
const other: Tenant = { accountId: 'acct_other', mode: 'test' };
const HOUR = 3_600_000;

describe('AuthorizationsService', () => {
  let fakes: PaymentsFakes;
  let service: AuthorizationsService;
  let enqueued: Array<{ id: string | undefined; delay: number | undefined; data: object }>;

  /** An authorization of 5000 made now, expiring in 168 h. */
  const authorization = (tenant: Tenant = shop) =>
    fakes.payments.seed(tenant, {
      status: 'requires_capture',
      captureMethod: 'manual',
      amount: 5000,
      amountCapturable: 5000,
      amountReceived: 0,
      captureBefore: new Date(fakes.clock.nowMs() + 168 * HOUR),
    });
  const events = () => fakes.events.emitted.map((e) => e.event);

  beforeAll(() => registerErrorCodes(PAYMENTS_ERRORS));

  beforeEach(() => {
    fakes = paymentsFakes();
    enqueued = [];
    service = new AuthorizationsService(
      fake<PaymentsRepository>(fakes.payments),
      fake<TransactionRunner>(fakes.transactions),
      fake<PaymentEvents>(fakes.events),
      fakes.clock,
      partialFake<QueueRegistry>({
        queue: <J extends JobMap>() =>
          partialFake<TypedQueue<J>>({
            add: (_name, data, opts) => {
              enqueued.push({ id: opts?.jobId, delay: opts?.delay, data });
              return Promise.resolve(partialFake<Job>({}));
            },
          }),
      }),
      new RecordingTestModeProcessor(),
      partialFake<PaymentsConfig>({ AUTHORIZATION_TTL_HOURS: 168 }),
      fake<PaymentIntentSides>(fakes.intentSides),
      null,
    );
  });

  it('captures in part: succeeded, received what was captured, emits payment.captured then payment.succeeded', async () => {
    const p = authorization();
    const view = await service.capture(shop, p.id, { amount_to_capture: 3000 });
    expect(view).toMatchObject({ status: 'succeeded', amount: 5000, amount_capturable: 0, amount_received: 3000 });
    expect(view.captured_at).toBe('2026-11-21T05:00:00.000Z');
    expect(events()).toEqual(['payment.captured', 'payment.succeeded']);
  });

  it('refuses more than is capturable, changing nothing', async () => {
    const p = authorization();
    const error = await rejection(service.capture(shop, p.id, { amount_to_capture: 5001 }));
    expect([error.code, error.status, error.param]).toEqual(['amount_exceeds_capturable', 400, 'amount_to_capture']);
    expect(fakes.payments.get(p.id)).toMatchObject({ status: 'requires_capture', amountCapturable: 5000 });
    expect(events()).toEqual([]);
  });

  it('cancels with the given reason (default requested_by_customer); capture or cancel after that is payment_unexpected_state', async () => {
    const a = authorization();
    const b = authorization();
    expect(await service.cancel(shop, a.id, { cancellation_reason: 'fraudulent' })).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'fraudulent',
      amount_capturable: 0,
    });
    expect((await service.cancel(shop, b.id, {})).cancellation_reason).toBe('requested_by_customer');
    for (const attempt of [service.capture(shop, a.id, {}), service.cancel(shop, a.id, {})]) {
      const error = await rejection(attempt);
      expect([error.code, error.status]).toEqual(['payment_unexpected_state', 400]);
      expect(error.message).toContain('canceled');
    }
    expect(events()).toEqual(['payment.canceled', 'payment.canceled']);
  });

  it("another tenant's authorization is not found", async () => {
    const theirs = authorization(other);
    const error = await rejection(service.capture(shop, theirs.id, {}));
    expect([error.code, error.status]).toEqual(['resource_missing', 404]);
    expect(fakes.payments.get(theirs.id)?.status).toBe('requires_capture');
  });

  it('expires only at capture_before, once, with cancellation_reason automatic', async () => {
    const p = authorization();
    fakes.clock.advance(168 * HOUR - 1);
    expect(await service.expire(p.id)).toBe(false);
    fakes.clock.advance(1);
    expect(await service.expire(p.id)).toBe(true);
    expect(await service.expire(p.id)).toBe(false);
    expect(fakes.payments.get(p.id)).toMatchObject({ status: 'canceled', cancellationReason: 'automatic', amountCapturable: 0 });
    expect(fakes.events.emitted.map((e) => [e.tenant, e.event, (e.data as { id: string }).id])).toEqual([
      [shop, 'payment.canceled', p.id],
    ]);
    expect(await service.expire('pay_unknown')).toBe(false);
  });

  it('a captured authorization never expires', async () => {
    const p = authorization();
    await service.capture(shop, p.id, {});
    fakes.clock.advance(200 * HOUR);
    expect(await service.expire(p.id)).toBe(false);
    expect(fakes.payments.get(p.id)?.status).toBe('succeeded');
  });

  it('sweep cancels the expired and re-enqueues the pending with deterministic ids and the remaining delay', async () => {
    const due = authorization();
    fakes.clock.advance(100 * HOUR);
    const pending = authorization();
    fakes.clock.advance(68 * HOUR);

    expect(await service.sweep()).toEqual({ expired: 1, scheduled: 1 });
    expect(fakes.payments.get(due.id)?.status).toBe('canceled');
    const at = pending.captureBefore?.getTime() ?? NaN;
    expect(enqueued).toEqual([{ id: `${pending.id}.expire.${at}`, delay: 100 * HOUR, data: { paymentId: pending.id } }]);
    expect(await service.sweep()).toEqual({ expired: 0, scheduled: 1 });
    expect(events()).toEqual(['payment.canceled']);
  });

  it('captureBefore is AUTHORIZATION_TTL_HOURS from now', () => {
    expect(service.captureBefore().toISOString()).toBe('2026-11-28T05:00:00.000Z');
  });
});
