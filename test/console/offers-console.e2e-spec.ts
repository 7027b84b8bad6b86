/**
 * The offers partner dashboard in real Chromium (platform contract: Console (web UI), offers):
 * offers with filters and pages, an offer's documents, indications (cancel, and the API's
 * refusal shown) and allocations, and Settings → API credentials (OAuth clients: create with
 * the secret shown once, rotate with a grace period, delete). Data is seeded through the
 * admin and partner API of the same in-process service.
 */
import { Clock } from '@app/platform';
import { jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { LifecycleService } from '../../apps/offers-api/src/lifecycle/lifecycle.service';
import { ADMIN, HOUR, iso, type OfferJson, OffersContext, type Partner, startOffers } from '../offers-api/fixtures';
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

const TERMS = 'tc-console';
const PROSPECTUS = 'https://example.com/console-alpha/prospectus.pdf';

describe('offers partner dashboard in Chromium', () => {
  let ctx: OffersContext;
  let browser: Browser;
  let origin: string;
  let partner: Partner;
  let alpha: OfferJson;
  let beta: OfferJson;
  const indications = new Map<string, string>();

  /** Moves the clock past the offer's close and runs its lifecycle transition (as the close job would). */
  async function close(offer: OfferJson): Promise<void> {
    const clock = ctx.t.app.get(Clock);
    const after = new Date(Date.parse(offer.closes_at) + 1);
    const spy = jest.spyOn(clock, 'now').mockImplementation(() => after);
    try {
      await ctx.t.app.get(LifecycleService).advance(offer.id);
    } finally {
      spy.mockRestore();
    }
  }

  async function indicate(offer: OfferJson, investor: string, amount: number): Promise<string> {
    const res = await ctx.indicate(partner, offer.id, {
      investor_id: investor,
      amount,
      currency: offer.currency,
      terms_accepted: true,
      terms_version: TERMS,
    });
    ctx.expectStatus(res, 201);
    const id = res.json<{ id: string }>().id;
    indications.set(investor, id);
    return id;
  }

  async function offer(overrides: Record<string, unknown>): Promise<OfferJson> {
    const o = await ctx.newOffer(overrides);
    await ctx.share(partner, o.id);
    return o;
  }

  /** A token by client credentials: the status of POST /oauth/token. */
  async function tokenStatus(clientId: string, clientSecret: string): Promise<number> {
    const res = await ctx.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });
    return res.statusCode;
  }

  async function signIn(tenant: string, viewport?: { width: number; height: number }) {
    const opened = await newConsolePage(browser, origin, viewport);
    const link = await consoleLink(ctx.t.app, 'offers', tenant);
    await signInWithLink(opened.page, link.url.replace(/^http:\/\/[^/]+/, origin));
    return opened;
  }

  /** What every page of the dashboard must hold: accessible, same origin only, no stray errors. */
  async function expectClean(page: Page, problems: PageProblems, allowStatuses: number[] = []): Promise<void> {
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problems.foreignRequests).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(unexpectedConsoleErrors(problems, allowStatuses)).toEqual([]);
  }

  const offerRows = (page: Page) => page.getByRole('region', { name: 'Offers' }).locator('tbody tr');

  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    origin = await serve(ctx.t.app);
    browser = await launchBrowser();
    partner = await ctx.newPartner('Console Partner');
    await ctx.publishTerms(TERMS);
    const now = Date.now();

    alpha = await offer({
      company: 'Console Alpha plc',
      ticker: 'ALPHA',
      maximum_investment: 50_000,
      closes_at: iso(now + 3 * 24 * HOUR + HOUR),
      documents: [{ type: 'prospectus', title: 'Alpha prospectus', url: PROSPECTUS }],
    });
    await indicate(alpha, 'inv_keep', 30_000);
    await indicate(alpha, 'inv_cancel', 40_000);
    await indicate(alpha, 'inv_api', 50_000);
    await indicate(alpha, 'inv_late', 60_000);

    beta = await offer({ company: 'Console Beta plc', ticker: 'BETA', closes_at: iso(now + 60_000) });
    await indicate(beta, 'inv_b1', 100_000);
    await indicate(beta, 'inv_b2', 50_000);
    await close(beta);
    const run = await ctx.inject({
      method: 'POST',
      url: `/admin/v1/offers/${beta.id}/allocations`,
      headers: ADMIN,
      payload: { shares_available: 300, policy: 'pro_rata' },
    });
    ctx.expectStatus(run, 201);

    await offer({ company: 'Console Gamma plc', ticker: 'GAMMA', opens_at: iso(now - 3 * HOUR), closes_at: iso(now - 2 * HOUR) });
    await offer({
      company: 'Console Delta plc',
      ticker: 'DELTA',
      type: 'placing',
      opens_at: iso(now + HOUR),
      closes_at: iso(now + 5 * HOUR),
    });
    // enough live offers for a second page at 10 a page: Alpha, Delta and these nine
    for (let i = 1; i <= 9; i++) {
      await offer({ company: `Filler ${i} plc`, ticker: `FILL${i}`, type: 'retail_offer' });
    }
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.t.close();
  });

  it('lists the offers of the agreement with status, closing time, limits, filters and pages', async () => {
    const { page, problems, context } = await signIn(partner.id);
    await page.getByRole('heading', { name: 'Offers', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/offers');
    await page.getByText('Offers 1–11 of 11').waitFor();
    const alphaRow = page.getByRole('row', { name: /Console Alpha plc/ });
    await expect(alphaRow.textContent()).resolves.toMatch(/ALPHA.*IPO.*live.*in 3 days.*250\.00 GBP.*50,000\.00 GBP/);
    await expect(page.getByRole('row', { name: /Console Delta plc/ }).textContent()).resolves.toMatch(/Placing.*upcoming/);
    expect(await page.getByRole('row', { name: /Console Gamma plc/ }).count()).toBe(0);
    await expectClean(page, problems);
    await screenshot(page, 'offers-list');

    // 10 a page: two pages, Next and Previous
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Offers 1–10 of 11').waitFor();
    expect(await offerRows(page).count()).toBe(10);
    const pages = page.getByRole('navigation', { name: 'Offer pages' });
    await pages.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Offers 11–11 of 11').waitFor();
    expect(await offerRows(page).count()).toBe(1);
    expect(new URL(page.url()).search).toBe('?limit=10&page=2');
    expect(await pages.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Offers 1–10 of 11').waitFor();

    // status filter: the closed ones, with "closed … ago"
    await page.getByLabel('Status').selectOption('closed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Offers 1–2 of 2').waitFor();
    const closed = await offerRows(page).allTextContents();
    // Beta closed early (its close time is still ahead): just "closed"
    await expect(
      page
        .getByRole('row', { name: /Console Beta plc/ })
        .locator('time')
        .textContent(),
    ).resolves.toBe('closed');
    expect(closed.join('\n')).toMatch(/Console Gamma plc.*closed 2 h ago/);
    expect(closed.join('\n')).not.toMatch(/Alpha/);

    // type filter (with the default status: live and upcoming)
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Type').selectOption('placing');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Offers 1–1 of 1').waitFor();
    await expect(offerRows(page).textContent()).resolves.toMatch(/Console Delta plc/);

    // changed within the last hour: offers of every status (modified_after), still 10 a page
    const anHourAgo = new Date(Date.now() - HOUR);
    const local = new Date(anHourAgo.getTime() - anHourAgo.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Type').selectOption('');
    await page.getByLabel('Changed after').fill(local);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Offers 1–10 of 13').waitFor();
    expect(new URL(page.url()).searchParams.get('modified_after')).toMatch(/Z$/);

    // nothing matches: the empty state
    await page.getByLabel('Changed after').fill('');
    await page.getByLabel('Type').selectOption('placing');
    await page.getByLabel('Status').selectOption('closed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No offers match').waitFor();
    await expectClean(page, problems);

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('Offers 1–11 of 11').waitFor();
    await context.close();
  });

  it('is readable at 390x844', async () => {
    const { page, problems, context } = await signIn(partner.id, { width: 390, height: 844 });
    await page.getByText('Offers 1–11 of 11').waitFor();
    await page.getByRole('link', { name: 'Console Alpha plc' }).waitFor();
    // the page itself does not scroll sideways (a wide table scrolls inside its own region)
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await expectClean(page, problems);
    await context.close();
  });

  it('shows an offer: details, documents, indications (cancel; the API refusal shown) and allocations', async () => {
    const { page, problems, context } = await signIn(partner.id);
    await page.getByRole('link', { name: 'Console Alpha plc' }).click();
    await page.getByRole('heading', { name: 'Console Alpha plc (ALPHA)', level: 1 }).waitFor();
    const prospectus = page.getByRole('link', { name: /Alpha prospectus/ });
    expect(await prospectus.getAttribute('href')).toBe(PROSPECTUS);
    expect(await prospectus.getAttribute('rel')).toBe('noopener noreferrer');
    await expect(page.locator('.details').textContent()).resolves.toMatch(/Maximum investment50,000\.00 GBP/);
    const indicationsRegion = page.getByRole('region', { name: 'Indications' });
    await indicationsRegion.getByRole('row', { name: /inv_keep/ }).waitFor();
    expect(await indicationsRegion.locator('tbody tr').count()).toBe(4);
    await page.getByText('No allocations yet').waitFor();
    await expectClean(page, problems);
    await screenshot(page, 'offers-offer');

    // cancel one: confirm, then its status is cancelled and it has no Cancel any more
    const row = (investor: string) => indicationsRegion.getByRole('row', { name: new RegExp(investor) });
    await row('inv_cancel').getByRole('button', { name: 'Cancel indication' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this indication?' });
    await dialog.getByRole('button', { name: 'Cancel indication' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('The indication of inv_cancel is cancelled.').waitFor();
    await row('inv_cancel').getByText('cancelled').waitFor();
    expect(await row('inv_cancel').getByRole('button').count()).toBe(0);
    const stored = await ctx.inject({
      method: 'GET',
      url: `/api/v1/indications/${indications.get('inv_cancel')}`,
      headers: partner.auth,
    });
    expect(stored.json<{ status: string }>().status).toBe('cancelled');

    // cancelled meanwhile through the API: cancelling again answers the same, and the page says so
    const viaApi = await ctx.inject({
      method: 'DELETE',
      url: `/api/v1/offers/${alpha.id}/indications/${indications.get('inv_api')}`,
      headers: partner.auth,
    });
    ctx.expectStatus(viaApi, 200);
    await row('inv_api').getByRole('button', { name: 'Cancel indication' }).click();
    await dialog.getByRole('button', { name: 'Cancel indication' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row('inv_api').getByText('cancelled').waitFor();

    // the offer closes meanwhile: the API refuses (409 offer_not_live) and the dialog shows its message
    await close(alpha);
    await row('inv_late').getByRole('button', { name: 'Cancel indication' }).click();
    await dialog.getByRole('button', { name: 'Cancel indication' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain(
      `Offer ${alpha.id} is closed; indications are cancelled only while it is live.`,
    );
    await expect(alert.textContent()).resolves.toContain('offer_not_live');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expectClean(page, problems, [409]);

    // an allocated offer: its allocations, newest first
    await page.getByRole('link', { name: 'Offers', exact: true }).click();
    await page.getByLabel('Status').selectOption('closed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: 'Console Beta plc' }).click();
    await page.getByRole('heading', { name: 'Console Beta plc (BETA)', level: 1 }).waitFor();
    const allocations = page.getByRole('region', { name: 'Allocations' });
    await allocations.getByRole('row', { name: /inv_b1/ }).waitFor();
    await expect(allocations.getByRole('row', { name: /inv_b1/ }).textContent()).resolves.toMatch(
      /scaled.*400.*200.*500\.00 GBP.*500\.00 GBP/,
    );
    expect(await allocations.locator('tbody tr').count()).toBe(2);
    // a closed offer: no Cancel
    expect(
      await page.getByRole('region', { name: 'Indications' }).getByRole('button', { name: 'Cancel indication' }).count(),
    ).toBe(0);
    await expectClean(page, problems, [409]);
    await context.close();
  });

  it('manages OAuth clients: create (secret once), rotate with a grace period, delete', async () => {
    const { page, problems, context } = await signIn(partner.id);
    await page.getByRole('link', { name: 'Settings: API credentials' }).click();
    await page.getByRole('heading', { name: 'API credentials', level: 1 }).waitFor();
    const clients = page.getByRole('region', { name: 'OAuth clients' });
    await clients.getByRole('row', { name: new RegExp(partner.clientId) }).waitFor();

    await page.getByLabel('Name').fill('reporting-backend');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('heading', { name: 'Client reporting-backend created' }).waitFor();
    const secret = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^cs_[A-Za-z0-9]+$/);
    const row = clients.getByRole('row', { name: /reporting-backend/ });
    await row.waitFor();
    const clientId = (await row.locator('code').textContent()) ?? '';
    expect(clientId).not.toBe('');
    expect(await tokenStatus(clientId, secret)).toBe(200);
    await expectClean(page, problems);

    // shown once: gone after a reload
    await page.reload();
    await row.waitFor();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // rotate with a 2-hour grace: the new secret once; the old one still gets a token
    await row.getByRole('button', { name: 'Rotate secret of reporting-backend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the secret of reporting-backend' });
    await dialog.getByLabel('Old secret keeps working for (hours)').fill('2');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: 'New secret for reporting-backend' }).waitFor();
    const rotated = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(rotated).toMatch(/^cs_[A-Za-z0-9]+$/);
    expect(rotated).not.toBe(secret);
    await expect(page.locator('.offers-secret-panel').textContent()).resolves.toMatch(/Previous secretworks until/);
    expect(await tokenStatus(clientId, rotated)).toBe(200);
    expect(await tokenStatus(clientId, secret)).toBe(200);
    await expect(row.textContent()).resolves.not.toMatch(/—/);
    await expectClean(page, problems);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    await screenshot(page, 'offers-api-credentials');

    // an out-of-range grace: the API's message in the dialog
    await row.getByRole('button', { name: 'Rotate secret of reporting-backend' }).click();
    await dialog.getByLabel('Old secret keeps working for (hours)').fill('500');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(/expires_in_hours/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await tokenStatus(clientId, rotated)).toBe(200);

    // delete (confirmed): gone from the list, its secrets stop
    await row.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete client reporting-backend?' });
    await confirm.getByRole('button', { name: 'Delete client' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    await page.getByText(`Client reporting-backend (${clientId}) was deleted`).waitFor();
    expect(await tokenStatus(clientId, rotated)).toBe(401);
    expect(await tokenStatus(clientId, secret)).toBe(401);
    await expectClean(page, problems, [400]);

    // by keyboard alone: create (Enter submits), then delete (Enter opens, Tab to the confirmation, Enter)
    await page.getByLabel('Name').focus();
    await page.keyboard.type('keyboard-client');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Client keyboard-client created' }).waitFor();
    const keyboardRow = clients.getByRole('row', { name: /keyboard-client/ });
    await keyboardRow.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    const keyboardConfirm = page.getByRole('dialog', { name: 'Delete client keyboard-client?' });
    await keyboardConfirm.waitFor();
    const focused = (): Promise<string | null> => page.evaluate<string | null>('document.activeElement?.textContent ?? null');
    for (let tabs = 0; tabs < 5 && (await focused()) !== 'Delete client'; tabs++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Delete client');
    await page.keyboard.press('Enter');
    await keyboardRow.waitFor({ state: 'detached' });
    await context.close();
  });

  it('shows the empty state to a partner without OAuth clients', async () => {
    const fresh = await newConsoleTenant(ctx.t.app, 'offers', 'Fresh Partner');
    const { page, problems, context } = await signIn(fresh);
    await page.getByRole('link', { name: 'Settings: API credentials' }).click();
    await page.getByText('No OAuth clients').waitFor();
    await page.getByRole('link', { name: 'Offers', exact: true }).click();
    await page.getByText('No offers match').waitFor();
    await expectClean(page, problems);
    await context.close();
  });
});
