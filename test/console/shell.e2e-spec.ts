import { offersService } from '../../apps/offers-api/src/service';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import {
  launchBrowser,
  newConsolePage,
  seriousA11yViolations,
  serve,
  signInWithLink,
  unexpectedConsoleErrors,
} from '../support/browser';
import { consoleLink, newConsoleTenant } from '../support/console';
import type { OffersConfig } from '../../apps/offers-api/src/config';

describe('console shell in Chromium (offers-api)', () => {
  let t: TestApp<OffersConfig>;
  let browser: Browser;
  let origin: string;
  let partner: string;

  beforeAll(async () => {
    t = await startTestApp(offersService);
    origin = await serve(t.app);
    browser = await launchBrowser();
    partner = await newConsoleTenant(t.app, 'offers', 'Shell Partner');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs in by link: the tenant is shown, the link leaves the address bar, sign-out ends the session', async () => {
    const { page, problems, context } = await newConsolePage(browser, origin);
    const link = await consoleLink(t.app, 'offers', partner);
    await signInWithLink(page, link.url.replace(/^http:\/\/[^/]+/, origin));
    await expect(page.locator('.tenant').textContent()).resolves.toBe('Shell Partner');
    expect(page.url()).not.toContain('token=');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'console_session_offers')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      secure: true,
    });
    expect(await seriousA11yViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    const after = await t.app.inject({
      method: 'GET',
      url: '/console/session',
      headers: { cookie: `console_session_offers=${cookies.find((c) => c.name === 'console_session_offers')?.value ?? ''}` },
    });
    expect(after.statusCode).toBe(401);
    expect(unexpectedConsoleErrors(problems)).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.foreignRequests).toEqual([]);
    await context.close();
  });

  it('a used link shows the API message and opens no session', async () => {
    const { page, problems, context } = await newConsolePage(browser, origin);
    const link = await consoleLink(t.app, 'offers', partner);
    const used = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: link.token } });
    expect(used.statusCode).toBe(200);
    await page.goto(link.url.replace(/^http:\/\/[^/]+/, origin));
    await page.getByRole('heading', { name: 'This sign-in link cannot be used' }).waitFor();
    await expect(page.locator('.error-message').textContent()).resolves.toContain('already been used');
    expect(await context.cookies()).toEqual([]);
    expect(unexpectedConsoleErrors(problems, [400])).toEqual([]);
    expect(problems.foreignRequests).toEqual([]);
    await context.close();
  });
});
