/**
 * An expired sign-in link in the browser (the contract: "a used or expired link → a page
 * saying so, and no session"): the page says the link expired, in the API's words; no
 * cookie is set; the token leaves the address bar; the page is accessible and the console
 * stays signed out on reload. (A used link: shell.e2e-spec.ts; the API: sessions.e2e-spec.ts.)
 */
import { CONSOLE_SECURITY_HEADERS } from '@app/console';
import { jest } from '@jest/globals';
import { Clock } from '@app/platform';
import type { Browser } from 'playwright-core';
import { offersService } from '../../apps/offers-api/src/service';
import type { OffersConfig } from '../../apps/offers-api/src/config';
import { startTestApp, type TestApp } from '../support/app';
import { launchBrowser, newConsolePage, seriousA11yViolations, serve, unexpectedConsoleErrors } from '../support/browser';
import { consoleLink, newConsoleTenant } from '../support/console';

describe('console: an expired sign-in link in Chromium', () => {
  let t: TestApp<OffersConfig>;
  let browser: Browser;
  let origin: string;
  let partner: string;

  beforeAll(async () => {
    t = await startTestApp(offersService);
    origin = await serve(t.app);
    browser = await launchBrowser();
    partner = await newConsoleTenant(t.app, 'offers', 'Expired Link Partner');
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows a page saying the link expired, and opens no session', async () => {
    const { page, problems, context } = await newConsolePage(browser, origin);
    const link = await consoleLink(t.app, 'offers', partner, 1);
    // the service's clock a second past the link's 1-second life, instead of waiting it out
    const pastExpiry = new Date(Date.parse(link.expires_at) + 1000);
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => pastExpiry);
    const response = await page.goto(link.url.replace(/^http:\/\/[^/]+/, origin));
    expect(response?.headers()['content-security-policy']).toBe(CONSOLE_SECURITY_HEADERS['Content-Security-Policy']);

    await page.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
    await expect(page.locator('.error-message').textContent()).resolves.toContain('expired');
    expect(page.url()).not.toContain('token=');
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator('nav[aria-label="Console"]').count()).toBe(0);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // the link stays refused, and a reload is still signed out
    const again = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: link.token } });
    expect([again.statusCode, again.headers['set-cookie']]).toEqual([400, undefined]);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    expect(await context.cookies()).toEqual([]);

    // the refused sign-in (400) and the session probe without a cookie (401) are the page working
    expect(unexpectedConsoleErrors(problems, [400, 401])).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.foreignRequests).toEqual([]);
    await context.close();
  });

  it('an unknown token is refused the same way, with no cookie', async () => {
    const { page, problems, context } = await newConsolePage(browser, origin);
    await page.goto(`${origin}/console/sign-in#token=cl_${'x'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
    await expect(page.locator('.error-message').textContent()).resolves.toContain('not valid');
    expect(await context.cookies()).toEqual([]);
    expect(unexpectedConsoleErrors(problems, [400])).toEqual([]);
    expect(problems.foreignRequests).toEqual([]);
    await context.close();
  });
});
