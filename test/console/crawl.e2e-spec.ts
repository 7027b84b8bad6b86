/**
 * Every page of every console, in Chromium, at 1280×800 and at 390×844: for each service, a
 * little data is seeded through the API (so lists have rows and detail pages exist), a
 * session is opened by link, and the crawler visits every link of the console's navigation
 * and, on each, the first in-console link inside the main content's tables (a detail page).
 * The pages come from the navigation the console renders, not from a list here, so a page
 * added later is crawled without touching this file.
 *
 * On each page: the document had the strict Content-Security-Policy; axe-core finds no
 * serious or critical violation; nothing was requested from another origin; no console error
 * and no uncaught exception; Tab from the top reaches the skip link first and then the
 * navigation links, in order, before the page's content; at 390 px the page does not scroll
 * sideways.
 */
import { CONSOLE_SECURITY_HEADERS } from '@app/console';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import type { Browser, Page } from 'playwright-core';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import {
  type ConsolePage,
  launchBrowser,
  newConsolePage,
  seriousA11yViolations,
  serve,
  signInWithLink,
  unexpectedConsoleErrors,
} from '../support/browser';
import { consoleLink, consoleSession, type ConsoleService, newConsoleTenant } from '../support/console';

const ADMIN = { authorization: 'Bearer dev-admin-key' };
const CSP = CONSOLE_SECURITY_HEADERS['Content-Security-Policy'];

type Headers = Record<string, string>;

/** Sends one request and insists on `status`: the seed must hold, or the crawl proves little. */
async function must(
  app: TestApp<PlatformConfig>,
  status: number,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Headers,
  payload?: object,
): Promise<Record<string, unknown>> {
  const res = await app.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  if (res.statusCode !== status) throw new Error(`seed: ${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return res.json<Record<string, unknown>>();
}

/**
 * A little of everything each console lists, made through the API (as the console session,
 * which is what the pages will read with; the admin key only for what only the operator does).
 */
const SEEDS: Record<ConsoleService, (t: TestApp<PlatformConfig>, tenant: string, session: Headers) => Promise<void>> = {
  offers: async (t, partner, session) => {
    const now = Date.now();
    await must(t, 201, 'POST', '/admin/v1/terms', ADMIN, {
      version: 'crawl-1',
      title: 'Investor terms',
      body: 'You may lose money.',
    });
    for (const [ticker, opensIn] of [
      ['CRWL', -3_600_000],
      ['SOON', 86_400_000],
    ] as const) {
      const offer = await must(t, 201, 'POST', '/admin/v1/offers', ADMIN, {
        company: `${ticker} Holdings plc`,
        ticker,
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: new Date(now + opensIn).toISOString(),
        closes_at: new Date(now + opensIn + 7 * 86_400_000).toISOString(),
        shares_offered: 1_000_000,
      });
      await must(t, 200, 'PUT', `/admin/v1/partners/${partner}/offers/${String(offer['id'])}`, ADMIN);
      if (opensIn < 0) {
        await must(t, 201, 'POST', `/api/v1/offers/${String(offer['id'])}/indications`, session, {
          investor_id: 'inv_crawl_1',
          amount: 100_000,
          currency: 'gbp',
          terms_accepted: true,
          terms_version: 'crawl-1',
        });
      }
    }
    await must(t, 201, 'POST', '/api/v1/webhook-endpoints', session, { url: 'http://127.0.0.1:9/crawl-hooks' });
    await must(t, 201, 'POST', '/api/v1/clients', session, { name: 'crawl client' });
  },
  vector: async (t, _project, session) => {
    await must(t, 201, 'POST', '/v1/tables', session, { name: 'crawl-articles', dimension: 3 });
    await must(t, 201, 'POST', '/v1/tables/crawl-articles/insert', session, {
      rows: [
        { id: 'doc-1', embedding: [1, 0, 0], metadata: { topic: 'rates' } },
        { id: 'doc-2', embedding: [0, 1, 0], metadata: { topic: 'equities' } },
        { id: 'doc-3', embedding: [0, 0, 1] },
      ],
    });
    await must(t, 201, 'POST', '/v1/tokens', session, { name: 'crawl token' });
  },
  payments: async (t, _account, session) => {
    const customer = await must(t, 201, 'POST', '/v2/customers', session, { email: 'crawl@example.com', name: 'Crawl Customer' });
    const payment = await must(t, 201, 'POST', '/v2/payments', session, {
      amount: 4200,
      currency: 'gbp',
      customer_id: customer['id'],
      description: 'crawl order',
    });
    await must(t, 201, 'POST', '/v2/refunds', session, { payment_id: payment['id'], amount: 1000 });
    await must(t, 201, 'POST', '/v2/payments', session, {
      amount: 1500,
      currency: 'gbp',
      customer_id: customer['id'],
      capture_method: 'manual',
    });
    await must(t, 201, 'POST', '/v2/webhook-endpoints', session, { url: 'http://127.0.0.1:9/crawl-hooks' });
  },
};

const SERVICES: Array<[ConsoleService, ServiceDefinition<PlatformConfig>]> = [
  ['offers', offersService as unknown as ServiceDefinition<PlatformConfig>],
  ['vector', vectorService as unknown as ServiceDefinition<PlatformConfig>],
  ['payments', paymentsService as unknown as ServiceDefinition<PlatformConfig>],
];

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** What one page was found doing wrong, per check (all empty for a good page). */
interface PageReport {
  readonly page: string;
  readonly csp: string[];
  readonly a11y: string[];
  readonly foreignRequests: string[];
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  readonly keyboard: string[];
  readonly overflow: string[];
}

/**
 * Waits until the page shows its content: the navigation, no request in flight for a moment,
 * no loading indicator in the content. Bounded (a page that polls, e.g. an index build's
 * progress, is judged as it is after the bound).
 */
async function settled(page: Page): Promise<void> {
  await page.locator('nav[aria-label="Console"]').waitFor();
  await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
  await page
    .locator('main .loading')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/** The page's DOM as the callbacks given to page.evaluate see it (they run in the page; this file is typed without the DOM lib). */
interface PageElement {
  tabIndex: number;
  id: string;
  readonly classList: { contains(name: string): boolean };
  readonly tagName: string;
  readonly textContent: string | null;
  closest(selector: string): PageElement | null;
  getAttribute(name: string): string | null;
  focus(): void;
  remove(): void;
}
declare const document: {
  createElement(tag: string): PageElement;
  readonly body: PageElement & { prepend(element: PageElement): void };
  readonly activeElement: PageElement | null;
  getElementById(id: string): PageElement | null;
  readonly scrollingElement: { readonly scrollWidth: number } | null;
};

/** The skip link, then the navigation links in order, before anything of the page's content. */
async function keyboardProblems(page: Page, navHrefs: readonly string[]): Promise<string[]> {
  const stops: Array<{ where: 'skip' | 'nav' | 'main' | 'other'; href: string | null; label: string }> = [];
  // "from the top": focus a marker before everything in the document (whatever the page
  // focused itself, e.g. a search box), so the next Tab goes to the first focusable element
  await page.evaluate(() => {
    const top = document.createElement('div');
    top.tabIndex = -1;
    top.id = 'crawl-top-of-document';
    document.body.prepend(top);
    top.focus();
  });
  for (let i = 0; i < navHrefs.length + 12; i++) {
    await page.keyboard.press('Tab');
    stops.push(
      await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return { where: 'other' as const, href: null, label: '(body)' };
        const where = el.classList.contains('skip-link')
          ? ('skip' as const)
          : el.closest('nav[aria-label="Console"]')
            ? ('nav' as const)
            : el.closest('main')
              ? ('main' as const)
              : ('other' as const);
        const label = `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
        return { where, href: el.getAttribute('href'), label };
      }),
    );
    const last = stops.at(-1);
    // into the content, or round again (a page with nothing to focus in its content)
    if (last?.where === 'main' || (stops.length > 1 && (last?.where === 'skip' || last?.label === '(body)'))) break;
  }
  await page.evaluate(() => document.getElementById('crawl-top-of-document')?.remove());
  const problems: string[] = [];
  if (stops[0]?.where !== 'skip') problems.push(`first Tab stop is ${stops[0]?.label ?? 'nothing'}, not the skip link`);
  const end = stops.findIndex((s, i) => s.where === 'main' || (i > 0 && (s.where === 'skip' || s.label === '(body)')));
  const beforeMain = end < 0 ? stops : stops.slice(0, end);
  const navStops = beforeMain.filter((s) => s.where === 'nav').map((s) => s.href);
  if (JSON.stringify(navStops) !== JSON.stringify(navHrefs))
    problems.push(`navigation Tab stops ${JSON.stringify(navStops)}, expected ${JSON.stringify(navHrefs)}`);
  return problems;
}

describe.each(SERVICES)('console crawl: %s', (service, definition) => {
  let t: TestApp<PlatformConfig>;
  let browser: Browser;
  let origin: string;
  let tenant: string;

  beforeAll(async () => {
    t = await startTestApp(definition);
    origin = await serve(t.app);
    browser = await launchBrowser();
    tenant = await newConsoleTenant(t.app, service, `Crawl ${service}`);
    const seeding = await consoleSession(t.app, service, tenant);
    await SEEDS[service](t, tenant, { ...seeding.headers, 'content-type': 'application/json' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(VIEWPORTS)(
    'every page at $width×$height: CSP, accessible, same origin, no errors, keyboard, no sideways scroll',
    async (viewport) => {
      const tab: ConsolePage = await newConsolePage(browser, origin, viewport);
      const { page, problems } = tab;
      const link = await consoleLink(t.app, service, tenant);
      await signInWithLink(page, link.url.replace(/^http:\/\/[^/]+/, origin));
      await settled(page);
      const navHrefs = await page
        .locator('nav[aria-label="Console"] a')
        .evaluateAll((links) => (links as unknown as PageElement[]).map((a) => a.getAttribute('href') ?? ''));
      expect(navHrefs.length).toBeGreaterThan(0);
      expect(navHrefs.every((href) => href.startsWith('/console/'))).toBe(true);

      /** Takes what the page did since the last call (each page is judged on its own). */
      const drain = (list: string[]): string[] => list.splice(0);
      drain(problems.consoleErrors);
      drain(problems.pageErrors);
      drain(problems.foreignRequests);

      const visit = async (href: string): Promise<PageReport> => {
        const response = await page.goto(`${origin}${href}`);
        await settled(page);
        const csp = response?.headers()['content-security-policy'];
        const overflow = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);
        const report: PageReport = {
          page: `${href} (${page.url().replace(origin, '')})`,
          csp: csp === CSP ? [] : [`Content-Security-Policy: ${String(csp)}`],
          a11y: (await seriousA11yViolations(page)).map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.join(', ')}`),
          foreignRequests: drain(problems.foreignRequests),
          consoleErrors: unexpectedConsoleErrors({ ...problems, consoleErrors: drain(problems.consoleErrors) }),
          pageErrors: drain(problems.pageErrors),
          keyboard: await keyboardProblems(page, navHrefs),
          overflow: viewport.width <= 390 && overflow > viewport.width + 1 ? [`scrollWidth ${overflow} > ${viewport.width}`] : [],
        };
        return report;
      };

      const reports: PageReport[] = [];
      const visited = new Set<string>();
      for (const href of navHrefs) {
        if (visited.has(href)) continue;
        visited.add(href);
        reports.push(await visit(href));
        // the first page this one links to from its tables: a detail page
        const detail = await page
          .locator('main table a[href^="/console/"]')
          .first()
          .getAttribute('href', { timeout: 1000 })
          .catch(() => null);
        if (detail && !visited.has(detail)) {
          visited.add(detail);
          reports.push(await visit(detail));
        }
      }
      console.log(
        `console crawl: ${service} at ${viewport.width}×${viewport.height}: ${reports.length} pages\n  ${reports.map((r) => r.page).join('\n  ')}`,
      );
      const bad = reports.filter((r) =>
        Object.entries(r).some(([key, value]) => key !== 'page' && (value as string[]).length > 0),
      );
      expect(bad).toEqual([]);
      expect(reports.length).toBeGreaterThanOrEqual(navHrefs.length);
      await tab.context.close();
    },
    300_000,
  );
});
