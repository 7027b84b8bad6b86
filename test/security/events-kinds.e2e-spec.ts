/**
 * The events API's 400 for a bad `type` names the kinds of the service answering it (issue 31:
 * payments-api's message cited offer event kinds, from a message shared in libs/webhooks).
 */
import type { LightMyRequestResponse } from 'fastify';
import { OffersContext, startOffers } from '../offers-api/fixtures';
import { type ErrorJson, newAccount, type PaymentsApp, startPayments } from '../payments-api/payments-context';

const BAD_TYPES = ['Bad!', 'offer.', 'PAYMENT.succeeded', 'nothing.*', 'no_such.kind', '*.*'];

function expectOwnKinds(res: LightMyRequestResponse, own: RegExp, foreign: RegExp): void {
  const error = res.json<ErrorJson>().error;
  expect([res.statusCode, error.code, error.param]).toEqual([400, 'parameter_invalid', 'type']);
  expect(error.message).toMatch(own);
  expect(error.message).not.toMatch(foreign);
}

describe('events API: a bad type names the service’s own kinds', () => {
  let payments: PaymentsApp;
  let offers: OffersContext;

  beforeAll(async () => {
    payments = await startPayments();
    offers = new OffersContext(await startOffers());
  });
  afterAll(async () => {
    await payments.close();
    await offers.t.close();
  });

  it('payments-api: payment and refund kinds, never an offer kind', async () => {
    const acct = await newAccount(payments);
    for (const type of BAD_TYPES) {
      const res = await payments.app.inject({
        method: 'GET',
        url: `/v2/events?type=${encodeURIComponent(type)}`,
        headers: acct.test,
      });
      expectOwnKinds(res, /payment\.succeeded.*refund\.succeeded|refund\.succeeded.*payment\.succeeded/, /offer|indication/);
    }
  });

  it('offers-api: offer and indication kinds, never a payments kind', async () => {
    const partner = await offers.newPartner();
    for (const type of BAD_TYPES) {
      const res = await offers.inject({
        method: 'GET',
        url: `/api/v1/events?type=${encodeURIComponent(type)}`,
        headers: partner.auth,
      });
      expectOwnKinds(res, /offer\.opened/, /payment|refund/);
    }
  });
});
