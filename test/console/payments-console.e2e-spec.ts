/**
 * The payments dashboard in real Chromium (contract, "Console (web UI)"): an account made
 * through the admin API, payments made through the API with its test key, then everything a
 * person does in the dashboard, checked against the API's own answers. The steps share one
 * signed-in page and run in order.
 */
import { jest } from '@jest/globals';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  type ConsolePage,
  launchBrowser,
  newConsolePage,
  screenshot,
  seriousA11yViolations,
  serve,
  signInWithLink,
  unexpectedConsoleErrors,
} from '../support/browser';
import { consoleLink } from '../support/console';
import {
  type Account,
  type ErrorJson,
  newAccount,
  newCustomer,
  type PaymentsApp,
  startPayments,
} from '../payments-api/payments-context';

interface PaymentJson {
  id: string;
  status: string;
  amount_received: number;
  amount_refunded: number;
}

const today = new Date().toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const FILLERS = 22;

jest.setTimeout(90_000);

describe('payments console in Chromium', () => {
  let t: PaymentsApp;
  let browser: Browser;
  let origin: string;
  let account: Account;
  let testKey: Record<string, string>;
  let customer: string;
  let bulkCustomer: string;
  let payment: string;
  let authorization: string;
  let hold: string;
  let declined: string;
  let cp: ConsolePage;
  let page: Page;

  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const charge = async (body: object, expected = 201): Promise<string> => {
    const res = await inject('POST', '/v2/payments', account.test, { currency: 'gbp', customer_id: customer, ...body });
    expect(res.statusCode).toBe(expected);
    return expected === 201 ? res.json<{ id: string }>().id : String(res.json<ErrorJson>().error['payment_id']);
  };
  /** The value of a Details row of the page, by its exact term. */
  const detail = (term: string): Locator =>
    page
      .locator('.details-row')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
      .locator('dd');
  const signedInLink = async (): Promise<string> =>
    (await consoleLink(t.app, 'payments', account.id)).url.replace(/^http:\/\/[^/]+/, origin);
  const expectAccessible = async (): Promise<void> => {
    expect(await seriousA11yViolations(page)).toEqual([]);
  };
  /** The locator's count once it reaches `n` (the page re-renders after a request), or as it is after 10 s. */
  const countOnce = async (locator: Locator, n: number): Promise<number> => {
    for (let i = 0; i < 100 && (await locator.count()) !== n; i++) await page.waitForTimeout(100);
    return locator.count();
  };
  const paymentRows = (): Locator => page.getByRole('region', { name: /^Payments, page/ }).locator('tbody tr');

  beforeAll(async () => {
    t = await startPayments();
    origin = await serve(t.app);
    browser = await launchBrowser();
    account = await newAccount(t, 'Console Shop');
    testKey = account.test;
    customer = await newCustomer(t, account.test, { email: 'jenny@example.com', name: 'Jenny Rosen' });
    bulkCustomer = await newCustomer(t, account.test, { email: 'bulk@example.com', name: 'Bulk Buyer' });
    // the oldest first, so the payments the steps open are on the first page (newest first)
    for (let i = 0; i < FILLERS; i++) {
      await charge({ amount: 100, customer_id: bulkCustomer, description: `Bulk order ${i + 1}` });
    }
    payment = await charge({ amount: 2000, description: 'Order 1042' });
    authorization = await charge({ amount: 5000, capture_method: 'manual', description: 'Hold to capture' });
    hold = await charge({ amount: 1200, capture_method: 'manual', description: 'Hold to cancel' });
    declined = await charge({ amount: 900, payment_method: 'pm_card_declined', description: 'Declined order' }, 402);
    cp = await newConsolePage(browser, origin);
    page = cp.page;
  });
  afterAll(async () => {
    await cp?.context.close();
    await browser?.close();
    await t?.close();
  });

  it('signs in and lists the API-made payments, newest first, with the volume chart showing today', async () => {
    await signInWithLink(page, await signedInLink());
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await expect(page.locator('.tenant').textContent()).resolves.toBe('Console Shop');
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor();
    expect(await countOnce(paymentRows(), 20)).toBe(20);
    const first = paymentRows().first();
    await expect(first.textContent()).resolves.toContain('Declined order');
    await expect(first.locator('.badge').textContent()).resolves.toBe('failed');

    // the chart's numbers: today's bar is what the API sums for today (2,200 + 2,000 pence)
    const volume = await inject('GET', '/v2/payments/volume', testKey);
    const todays = volume.json<{ data: Array<{ day: string; currency: string; amount: number }> }>().data;
    expect(todays).toEqual([{ day: today, currency: 'gbp', amount: FILLERS * 100 + 2000, count: FILLERS + 1 }]);
    const chart = page.getByRole('figure').filter({ hasText: 'Succeeded volume per day, GBP' });
    expect(await countOnce(chart.locator('svg rect'), 1)).toBe(1);
    await expect(chart.locator('svg rect title').textContent()).resolves.toBe(`${today} · GBP: 42.00`);
    await chart.getByText('Show the data').click();
    await expect(chart.getByRole('row', { name: new RegExp(`^${today}`) }).textContent()).resolves.toContain('42.00');
    await chart.getByText('Show the data').click();
    await expectAccessible();
    await screenshot(page, 'payments-list');
  });

  it('filters by status, customer and creation date, and pages with Next and Previous', async () => {
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: `Payment ${declined}: 9.00 GBP` }).waitFor();
    expect(await countOnce(paymentRows(), 1)).toBe(1);

    await page.getByLabel('Status').selectOption('requires_capture');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: `Payment ${hold}: 12.00 GBP` }).waitFor();
    expect(await countOnce(paymentRows(), 2)).toBe(2);

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Customer ID').fill(bulkCustomer);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor({ state: 'detached' });
    expect(await countOnce(paymentRows(), 20)).toBe(20);
    const pager = page.getByRole('navigation', { name: 'Payments pages' });
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2', { exact: true }).waitFor();
    expect(await countOnce(paymentRows(), FILLERS - 20)).toBe(FILLERS - 20);
    await expect(paymentRows().last().textContent()).resolves.toContain('Bulk order 1');
    await expect(pager.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 1', { exact: true }).waitFor();
    await expect(paymentRows().first().textContent()).resolves.toContain(`Bulk order ${FILLERS}`);
    await expect(pager.getByRole('button', { name: 'Previous' }).isDisabled()).resolves.toBe(true);

    await page.getByLabel('Created from').fill(tomorrow);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No payments match these filters').waitFor();
    await page.getByLabel('Created from').fill(today);
    await page.getByLabel('Created to').fill(today);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    expect(await countOnce(paymentRows(), 20)).toBe(20);

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor();
  });

  it('opens a payment, refunds part of it, lists the refund, and shows the API message for an over-refund', async () => {
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).click();
    await page.getByRole('heading', { name: 'Payment', level: 1 }).waitFor();
    await expect(detail('ID').textContent()).resolves.toBe(payment);
    await expect(detail('Received').textContent()).resolves.toBe('20.00 GBP');
    await page.getByText('No refunds').waitFor();
    const refundForm = page.getByRole('form', { name: 'Refund this payment' });
    await expect(refundForm.getByLabel('Amount (GBP)').inputValue()).resolves.toBe('20.00');
    await refundForm.getByLabel('Amount (GBP)').fill('5.00');
    await refundForm.getByLabel('Reason').selectOption('requested_by_customer');
    await refundForm.getByRole('button', { name: 'Refund' }).click();
    await page.getByText('Refunded 5.00 GBP.').waitFor();
    await page.getByText('15.00 GBP can still be refunded.').waitFor();
    await expect(detail('Refunded').textContent()).resolves.toBe('5.00 GBP');
    const refunds = page.getByRole('region', { name: 'Refunds of this payment' });
    expect(await countOnce(refunds.locator('tbody tr'), 1)).toBe(1);
    await expect(refunds.locator('tbody tr').textContent()).resolves.toContain('requested by customer');
    const stored = await inject('GET', `/v2/payments/${payment}`, testKey);
    expect(stored.json<PaymentJson>()).toMatchObject({ amount_refunded: 500 });

    // more than is left: the API refuses it, and the page says what the API said
    const expected = await inject('POST', '/v2/refunds', testKey, { payment_id: payment, amount: 10_000 });
    expect(expected.statusCode).toBe(400);
    await refundForm.getByLabel('Amount (GBP)').fill('100.00');
    await refundForm.getByRole('button', { name: 'Refund' }).click();
    const alert = refundForm.getByRole('alert');
    await alert.waitFor();
    await expect(alert.locator('.error-message').textContent()).resolves.toBe(expected.json<ErrorJson>().error.message);
    await expect(alert.textContent()).resolves.toContain('amount_exceeds_refundable');
    await expect(detail('Refunded').textContent()).resolves.toBe('5.00 GBP');
    await expectAccessible();
    await screenshot(page, 'payments-payment');
    // a malformed amount is caught before any request (and the API's earlier message goes)
    await refundForm.getByLabel('Amount (GBP)').fill('1.234');
    await refundForm.getByRole('button', { name: 'Refund' }).click();
    await page.getByText('Enter an amount like 12.34 (GBP).').waitFor();
    expect(await countOnce(refundForm.getByRole('alert'), 0)).toBe(0);
  });

  it('captures part of an authorization and cancels another', async () => {
    await page.goto(`${origin}/console/payments/${authorization}`);
    await page.getByRole('heading', { name: 'Authorization' }).waitFor();
    await expect(detail('Capturable').textContent()).resolves.toBe('50.00 GBP');
    await expect(detail('Capture before').textContent()).resolves.not.toBe('—');
    const captureForm = page.getByRole('form', { name: 'Capture this payment' });
    await captureForm.getByLabel('Amount to capture (GBP)').fill('35.00');
    await captureForm.getByRole('button', { name: 'Capture' }).click();
    await page.getByRole('form', { name: 'Refund this payment' }).waitFor();
    await expect(page.locator('#payment-summary .badge').textContent()).resolves.toBe('succeeded');
    await expect(detail('Received').textContent()).resolves.toBe('35.00 GBP');
    await expect(detail('Capturable').textContent()).resolves.toBe('0.00 GBP');
    expect((await inject('GET', `/v2/payments/${authorization}`, testKey)).json<PaymentJson>()).toMatchObject({
      status: 'succeeded',
      amount_received: 3500,
    });

    await page.goto(`${origin}/console/payments/${hold}`);
    await page.getByRole('button', { name: 'Cancel authorization' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this authorization?' });
    await dialog.getByLabel('Cancellation reason').selectOption('abandoned');
    await dialog.getByRole('button', { name: 'Cancel authorization' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('(abandoned)').waitFor();
    await expect(page.locator('#payment-summary .badge').textContent()).resolves.toBe('canceled');
    expect((await inject('GET', `/v2/payments/${hold}`, testKey)).json<PaymentJson>().status).toBe('canceled');
    await expectAccessible();
  });

  it('lists customers, creates one, and shows a customer with its payments', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Jenny Rosen' }).waitFor();
    await expectAccessible();
    await screenshot(page, 'payments-customers');

    await page.getByRole('button', { name: 'New customer' }).click();
    const dialog = page.getByRole('dialog', { name: 'New customer' });
    await dialog.getByLabel('Email').fill('sam@example.com');
    await dialog.getByLabel('Name').fill('Sam Spade');
    await dialog.getByLabel('Metadata').fill('crm_id=42');
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Create customer' }).click();
    await page.getByText('Customer created.').waitFor();
    await page.getByRole('heading', { name: 'Sam Spade' }).waitFor();
    await page.getByText('No payments for this customer').waitFor();
    const id = (await detail('ID').textContent()) ?? '';
    const created = await inject('GET', `/v2/customers/${id}`, testKey);
    expect(created.json()).toMatchObject({ email: 'sam@example.com', name: 'Sam Spade', metadata: { crm_id: '42' } });

    await page.getByRole('link', { name: 'All customers' }).click();
    await page.getByRole('link', { name: 'Jenny Rosen' }).click();
    await page.getByRole('heading', { name: 'Jenny Rosen' }).waitFor();
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor();
    expect(await countOnce(page.getByRole('region', { name: 'Payments of this customer' }).locator('tbody tr'), 4)).toBe(4);
  });

  it('lists events, filters them by type (exact and prefix), pages, and shows an event as JSON', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    const rows = page.getByRole('region', { name: /^Events, page/ }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await countOnce(rows, 20)).toBe(20);
    const pager = page.getByRole('navigation', { name: 'Event pages' });
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2', { exact: true }).waitFor();
    await rows.first().waitFor();
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 1', { exact: true }).waitFor();
    expect(await countOnce(rows, 20)).toBe(20);

    await page.getByLabel('Event type').fill('refund.succeeded');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page
      .getByRole('region', { name: /^Events, page/ })
      .locator('tbody tr')
      .nth(1)
      .waitFor({ state: 'detached' });
    expect(await countOnce(rows, 1)).toBe(1);
    await expect(rows.first().locator('td').first().textContent()).resolves.toBe('refund.succeeded');

    await page.getByLabel('Event type').fill('payment.*');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await rows
      .locator('td:first-child', { hasText: /^payment\.canceled$/ })
      .first()
      .waitFor();
    const types = await rows.locator('td:first-child').allTextContents();
    expect(types.length).toBeGreaterThan(1);
    expect(types.every((type) => type.startsWith('payment.'))).toBe(true);

    await page.getByLabel('Event type').fill('payment.failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await rows
      .locator('td:first-child', { hasText: /^payment\.canceled$/ })
      .first()
      .waitFor({ state: 'detached' });
    expect(await countOnce(rows, 1)).toBe(1);
    await rows.first().getByText('JSON').click();
    const json = rows.first().locator('pre');
    await json.waitFor();
    const event = JSON.parse((await json.textContent()) ?? '{}') as { object: string; event: string; data: { id: string } };
    expect(event).toMatchObject({ object: 'event', event: 'payment.failed', data: { id: declined } });

    await page.getByLabel('From').fill(tomorrow);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await rows.nth(19).waitFor();
    await expectAccessible();
    await screenshot(page, 'payments-events');
  });

  it('rolls the secret key (shown once; the new key works, the old one is refused) and makes a read-only restricted key', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Developers → API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const keys = page.getByRole('region', { name: /^API keys, page/ }).locator('tbody tr');
    await keys.first().waitFor();
    expect(await countOnce(keys, 1)).toBe(1);
    await expectAccessible();
    await screenshot(page, 'payments-api-keys');

    // revoking the only secret key warns (the session is not a key, so the API would allow it); Escape backs out
    await page.getByRole('button', { name: /^Revoke secret key/ }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke this key?' });
    await revoke.getByText('It is the only working test secret key.').waitFor();
    await page.keyboard.press('Escape');
    await revoke.waitFor({ state: 'detached' });
    expect((await inject('GET', '/v2/customers', testKey)).statusCode).toBe(200);

    const roll = page.getByRole('form', { name: 'Roll the test secret key' });
    await roll.getByLabel('Old keys expire in (hours)').fill('0');
    await roll.getByRole('button', { name: 'Roll secret key' }).click();
    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    const rolled = (await secret.textContent()) ?? '';
    expect(rolled).toMatch(/^sk_test_/);
    expect(await countOnce(keys, 1)).toBe(1);
    const newKey = { authorization: `Bearer ${rolled}` };
    expect((await inject('GET', '/v2/customers', newKey)).statusCode).toBe(200);
    const old = await inject('GET', '/v2/customers', testKey);
    expect([old.statusCode, old.json<ErrorJson>().error.code]).toEqual([401, 'invalid_api_key']);
    testKey = newKey;

    const restricted = page.getByRole('form', { name: 'Create a restricted key' });
    await restricted.getByLabel('Key name').fill('reporting');
    await restricted.getByRole('radio', { name: 'Payments: read' }).check();
    await expectAccessible();
    await restricted.getByRole('button', { name: 'Create restricted key' }).click();
    await page.getByText('Restricted key “reporting”').waitFor();
    const rk = (await secret.textContent()) ?? '';
    expect(rk).toMatch(/^rk_test_/);
    const rkAuth = { authorization: `Bearer ${rk}` };
    expect((await inject('GET', '/v2/payments', rkAuth)).statusCode).toBe(200);
    const write = await inject('POST', '/v2/customers', rkAuth, { email: 'no@example.com' });
    expect([write.statusCode, write.json<ErrorJson>().error.code]).toEqual([403, 'permission_denied']);
    await page.getByRole('cell', { name: 'payments read' }).waitFor();
    expect(await countOnce(keys, 2)).toBe(2);

    // the secret is shown once: back on the page, it is gone
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Developers → API keys' }).click();
    await keys.nth(1).waitFor();
    expect(await countOnce(page.getByTestId('secret-value'), 0)).toBe(0);
    await expect(page.locator('body').textContent()).resolves.not.toContain(rk);

    await page.getByRole('button', { name: /^Revoke reporting key/ }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await keys.nth(1).waitFor({ state: 'detached' });
    expect((await inject('GET', '/v2/payments', rkAuth)).statusCode).toBe(401);
  });

  it('Live mode: the lists are empty and say so', async () => {
    await page.getByRole('button', { name: 'Live mode' }).click();
    await expect(page.getByRole('button', { name: 'Live mode' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByText('No live payments yet').waitFor();
    await page.getByText('No succeeded payments in the last 30 days').waitFor();
    await expectAccessible();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByText('No live customers yet').waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Events' }).click();
    await page.getByText('No live events yet').waitFor();
    await page.getByRole('button', { name: 'Test mode' }).click();
    await page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor();
  });

  it('made no foreign request, no unexpected console error and no page error', () => {
    // the over-refund is the one error answer the steps provoke (shown on the page)
    expect(unexpectedConsoleErrors(cp.problems, [400])).toEqual([]);
    expect(cp.problems.pageErrors).toEqual([]);
    expect(cp.problems.foreignRequests).toEqual([]);
  });

  it('is usable at 390 × 844', async () => {
    const phone = await newConsolePage(browser, origin, { width: 390, height: 844 });
    try {
      await signInWithLink(phone.page, await signedInLink());
      await phone.page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).waitFor();
      await phone.page.getByRole('figure').filter({ hasText: 'Succeeded volume per day, GBP' }).waitFor();
      expect(await seriousA11yViolations(phone.page)).toEqual([]);
      // the page itself does not scroll sideways (wide tables scroll inside their region)
      const overflow = await phone.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBe(0);
      await phone.page.getByRole('link', { name: `Payment ${payment}: 20.00 GBP` }).click();
      await phone.page.getByRole('form', { name: 'Refund this payment' }).waitFor();
      expect(await seriousA11yViolations(phone.page)).toEqual([]);
      expect(unexpectedConsoleErrors(phone.problems)).toEqual([]);
      expect(phone.problems.foreignRequests).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });
});
