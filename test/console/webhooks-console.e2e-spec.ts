/**
 * The console's Webhooks pages in real Chromium (platform contract, "Console (web UI)":
 * Settings → Webhooks), against offers-api and, shorter, payments-api: real PostgreSQL,
 * Redis, delivery worker and HTTP receivers on loopback. Every request stays on the
 * service's origin; axe finds nothing serious; the browser logs no unexpected error.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { serviceSignature } from '@app/webhooks';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import type { OffersConfig } from '../../apps/offers-api/src/config';
import type { PaymentsConfig } from '../../apps/payments-api/src/config';
import { startTestApp, type TestApp } from '../support/app';
import {
  launchBrowser,
  newConsolePage,
  type PageProblems,
  screenshot,
  seriousA11yViolations,
  serve,
  signInWithLink,
  unexpectedConsoleErrors,
} from '../support/browser';
import { consoleLink, newConsoleTenant } from '../support/console';
import { waitFor } from '../support/wait';

const until = (fn: () => Promise<boolean>, what: string) => waitFor(what, fn, { timeoutMs: 15_000, everyMs: 100 });

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on 127.0.0.1 (port 0) that records each request and answers as told. */
async function receiver(
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ url: string; got: Received[]; close: () => Promise<void> }> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request's signatures verify with `secret`: Standard Webhooks (the npm package) and Service-Signature. */
function expectSignedWith(request: Received | undefined, secret: string): void {
  expect(request).toBeDefined();
  const { headers, body } = request as Received;
  const verified = new Webhook(secret).verify(body, {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  });
  expect(verified).toMatchObject({ test: true });
  expect(headers['service-signature']).toBe(serviceSignature(secret, body));
}

const ENV = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,400ms' };

async function expectClean(page: Page, problems: PageProblems, allowStatuses: readonly number[] = []): Promise<void> {
  expect(await seriousA11yViolations(page)).toEqual([]);
  expect(unexpectedConsoleErrors(problems, allowStatuses)).toEqual([]);
  expect(problems.pageErrors).toEqual([]);
  expect(problems.foreignRequests).toEqual([]);
}

/** The secret shown once on the page. */
async function shownSecret(page: Page): Promise<string> {
  const secret = (await page.getByTestId('secret-value').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_/);
  return secret;
}

/** Creates an endpoint with the form (all events) and returns its secret as shown. */
async function createEndpoint(page: Page, url: string, description: string): Promise<string> {
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const form = page.getByRole('form', { name: 'New webhook endpoint' });
  await form.getByLabel('Endpoint URL').fill(url);
  await form.getByLabel('Description').fill(description);
  await expect(form.getByRole('checkbox', { name: /All events/ }).isChecked()).resolves.toBe(true);
  await form.getByRole('button', { name: 'Create endpoint' }).click();
  await page.getByTestId('secret-value').waitFor();
  return shownSecret(page);
}

const deliveriesTable = (page: Page) => page.getByRole('region', { name: 'Deliveries of this endpoint' });
/** The deliveries with this status badge. */
const withStatus = (page: Page, status: string) =>
  deliveriesTable(page).locator('.badge', { hasText: new RegExp(`^${status}$`) });
const chartOf = (page: Page) => page.getByRole('region', { name: 'Delivery attempts', exact: true });

describe('console Webhooks pages in Chromium', () => {
  let browser: Browser;
  let ok: Awaited<ReturnType<typeof receiver>>;
  let broken: Awaited<ReturnType<typeof receiver>>;

  beforeAll(async () => {
    browser = await launchBrowser();
    ok = await receiver(200, 'ok-received');
    // a failure that asks for no automatic retry: one attempt, then `failed`
    broken = await receiver(500, 'receiver broke', { 'webhook-delivery': 'abort' });
  });
  afterAll(async () => {
    await browser?.close();
    await ok?.close();
    await broken?.close();
  });

  describe('offers-api (Settings → Webhooks)', () => {
    let t: TestApp<OffersConfig>;
    let origin: string;
    let partner: string;

    beforeAll(async () => {
      t = await startTestApp(offersService, ENV);
      origin = await serve(t.app);
      partner = await newConsoleTenant(t.app, 'offers', 'Webhooks Partner');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('endpoints, secret once, test events signed, rotation, chart, retry, recover, catalogue, errors', async () => {
      const { page, problems, context } = await newConsolePage(browser, origin);
      const link = await consoleLink(t.app, 'offers', partner);
      await signInWithLink(page, link.url.replace(/^http:\/\/[^/]+/, origin));
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No webhook endpoints yet').waitFor();

      // an error path: the API's message for a URL it refuses
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const form = page.getByRole('form', { name: 'New webhook endpoint' });
      await form.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/hooks');
      await form.getByRole('button', { name: 'Create endpoint' }).click();
      const alert = form.getByRole('alert');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('webhook_url_invalid');
      // no event chosen: said before asking the API (which would read it as all)
      await form.getByRole('checkbox', { name: /All events/ }).uncheck();
      await form.getByRole('button', { name: 'Create endpoint' }).click();
      await form.getByText('Choose at least one event, or all events.').waitFor();
      await form.getByRole('checkbox', { name: /All events/ }).check();
      await form.getByLabel('Endpoint URL').fill(ok.url);
      await form.getByLabel('Description').fill('Main receiver');
      await form.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByTestId('secret-value').waitFor();
      const secret = await shownSecret(page);
      await page.getByRole('link', { name: ok.url }).waitFor();
      await screenshot(page, 'webhooks-endpoints');
      await expectClean(page, problems, [400]);

      // shown once: a reload does not show it again
      await page.reload();
      await page.getByRole('link', { name: ok.url }).waitFor();
      expect(await page.content()).not.toContain(secret);
      expect(await page.getByTestId('secret-value').count()).toBe(0);

      // the endpoint page: a test event, delivered and signed with the secret
      await page.getByRole('link', { name: ok.url }).click();
      await page.getByRole('heading', { name: 'Webhook endpoint', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await withStatus(page, 'succeeded').first().waitFor();
      await deliveriesTable(page).getByText('1 attempt').click();
      await deliveriesTable(page).getByText('HTTP 200', { exact: true }).waitFor();
      const attempt = (await deliveriesTable(page).locator('.wh-attempt').first().textContent()) ?? '';
      expect(attempt).toMatch(/HTTP 200 \d+ ms/);
      expect(attempt).toContain('ok-received');
      expect(ok.got).toHaveLength(1);
      expectSignedWith(ok.got[0], secret);

      // rotate: a new secret, shown once, signs the next test event
      await page.getByRole('button', { name: 'Rotate secret', exact: true }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the signing secret?' })
        .getByRole('button', { name: 'Rotate secret' })
        .click();
      await page.getByText('New signing secret').waitFor();
      const rotated = await shownSecret(page);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'Send test event' }).click();
      await until(async () => Promise.resolve(ok.got.length === 2), 'the receiver got 2 requests');
      expectSignedWith(ok.got[1], rotated);

      // the chart counts both successes (from the stats route)
      const chart = chartOf(page);
      await chart.getByText('2 succeeded').waitFor();
      await chart.getByText('0 failed').waitFor();
      await page.getByRole('heading', { name: 'Webhook endpoint', exact: true }).scrollIntoViewIfNeeded();
      await screenshot(page, 'webhooks-endpoint');
      await chart.getByText('Show the data').click();
      await expect(chart.getByRole('row').count()).resolves.toBeGreaterThan(24); // header + 24 hours
      await chart.getByLabel('Period').selectOption('day');
      await chart.getByText('2 succeeded').waitFor();
      await until(async () => (await withStatus(page, 'succeeded').count()) === 2, '2 succeeded deliveries listed');
      await expectClean(page, problems, [400]);

      // edit: description and events
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
      await edit.getByLabel('Description').fill('Main receiver, edited');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Main receiver, edited').waitFor();

      // a failing receiver: a failed delivery, retried, then recovered
      await page.getByRole('link', { name: 'All endpoints' }).click();
      await createEndpoint(page, broken.url, 'Broken receiver');
      await page.getByRole('link', { name: broken.url }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await withStatus(page, 'failed').first().waitFor();
      await deliveriesTable(page).getByText('1 attempt').click();
      await deliveriesTable(page).getByText('HTTP 500', { exact: true }).waitFor();
      await expect(deliveriesTable(page).textContent()).resolves.toContain('receiver broke');
      await chartOf(page).getByText('1 failed').waitFor();

      await deliveriesTable(page)
        .getByRole('button', { name: /^Retry delivery/ })
        .click();
      await deliveriesTable(page).getByText('2 attempts').waitFor();
      await withStatus(page, 'failed').first().waitFor();
      expect(broken.got).toHaveLength(2);

      const recover = page.getByRole('form', { name: 'Recover failed deliveries' });
      await recover.getByRole('button', { name: 'Recover' }).click();
      await page.getByText('1 failed delivery queued again.').waitFor();
      await deliveriesTable(page).getByText('3 attempts').waitFor();
      expect(broken.got).toHaveLength(3);
      await chartOf(page).getByText('3 failed').waitFor();
      await expectClean(page, problems, [400]);

      // delete it (behind a confirmation)
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByRole('link', { name: ok.url }).waitFor();
      expect(await page.getByRole('link', { name: broken.url }).count()).toBe(0);

      // the catalogue: each kind with an example payload, and "Send as test"
      await page.getByRole('link', { name: 'Event catalogue' }).click();
      await page.getByRole('heading', { name: 'Event catalogue' }).waitFor();
      const examples = page.locator('pre.wh-json');
      await examples.first().waitFor();
      expect(await examples.count()).toBeGreaterThan(1);
      const firstExample = JSON.parse((await examples.first().textContent()) ?? '') as Record<string, unknown>;
      expect(Object.keys(firstExample)).toEqual(expect.arrayContaining(['id', 'event', 'timestamp', 'data']));
      await page
        .getByRole('button', { name: /^Send as test: / })
        .nth(1)
        .click();
      await page.getByText('queued.').waitFor();
      await until(async () => Promise.resolve(ok.got.length === 3), 'the receiver got 3 requests');
      expectSignedWith(ok.got[2], rotated);
      await screenshot(page, 'webhooks-catalogue');
      await expectClean(page, problems, [400]);

      // narrow screen: the endpoint page still works
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('link', { name: 'See its delivery' }).click();
      await page.getByRole('heading', { name: 'Webhook endpoint', exact: true }).waitFor();
      await until(async () => (await withStatus(page, 'succeeded').count()) === 3, '3 succeeded deliveries listed');
      await screenshot(page, 'webhooks-endpoint-390');
      await expectClean(page, problems, [400]);
      await context.close();
    });
  });

  describe('payments-api (Webhooks, as offers)', () => {
    let t: TestApp<PaymentsConfig>;
    let origin: string;
    let account: string;

    beforeAll(async () => {
      t = await startTestApp(paymentsService, ENV);
      origin = await serve(t.app);
      account = await newConsoleTenant(t.app, 'payments', 'Webhooks Shop');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('creates an endpoint, shows its secret once, sends a signed test event and lists its attempt', async () => {
      const before = ok.got.length;
      const { page, problems, context } = await newConsolePage(browser, origin);
      const link = await consoleLink(t.app, 'payments', account);
      await signInWithLink(page, link.url.replace(/^http:\/\/[^/]+/, origin));
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByText('No webhook endpoints yet').waitFor();
      const secret = await createEndpoint(page, ok.url, 'Shop receiver');
      await page.getByRole('link', { name: ok.url }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await withStatus(page, 'succeeded').first().waitFor();
      await deliveriesTable(page).getByText('1 attempt').click();
      await deliveriesTable(page).getByText('HTTP 200', { exact: true }).waitFor();
      expect(ok.got).toHaveLength(before + 1);
      expectSignedWith(ok.got[before], secret);
      expect(JSON.parse(ok.got[before]?.body ?? '{}') as { event: string }).toMatchObject({
        event: expect.stringMatching(/^payment\./) as string,
      });
      await chartOf(page).getByText('1 succeeded').waitFor();
      await expectClean(page, problems);

      await page.getByRole('link', { name: 'All endpoints' }).click();
      await page.getByRole('link', { name: 'Event catalogue' }).click();
      await page.getByRole('heading', { name: /payment\.succeeded/ }).waitFor();
      await expectClean(page, problems);
      await context.close();
    });
  });
});
