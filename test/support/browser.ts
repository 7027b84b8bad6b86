/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Real Chromium for the console's browser tests: Debian's `chromium` (installed by .ci/run),
 * driven by playwright-core. The flags keep it from reaching any outside host (the machine's
 * network refuses them); every page is served by an in-process service on loopback.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * Serves an in-process app on loopback and returns its base URL. The host is `localhost`
 * (not 127.0.0.1): browsers treat http://localhost as a secure context, so the session
 * cookie's `Secure` attribute (NODE_ENV=test) is honoured as in production over https.
 */
export async function serve(app: NestFastifyApplication): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://localhost:${address.port}`;
}

/** What a page did that it must not: console errors, uncaught exceptions, requests to another origin. */
export interface PageProblems {
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  readonly foreignRequests: string[];
}

export interface ConsolePage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly problems: PageProblems;
}

/**
 * A new browser context (its own cookies) and page on `origin`, recording console errors,
 * page errors and every request that leaves the origin (data: URLs aside).
 */
export async function newConsolePage(
  browser: Browser,
  origin: string,
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport, baseURL: origin });
  const page = await context.newPage();
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], foreignRequests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(`${message.text()} @ ${page.url()}`);
  });
  page.on('pageerror', (error) => problems.pageErrors.push(`${error.message} @ ${page.url()}`));
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (new URL(url).origin !== new URL(origin).origin) problems.foreignRequests.push(url);
  });
  return { context, page, problems };
}

/**
 * Known console errors that are the page working as designed: a request the API answers
 * with an error status (the page shows the API's message) is logged by Chromium as "Failed to
 * load resource: the server responded with a status of 4xx". Tests that provoke one filter
 * it with this; nothing else is excused.
 */
export function unexpectedConsoleErrors(problems: PageProblems, allowStatuses: readonly number[] = []): string[] {
  return problems.consoleErrors.filter(
    (line) => !allowStatuses.some((status) => line.includes(`the server responded with a status of ${status}`)),
  );
}

/** Opens a sign-in link in the page and waits for the console's first page. */
export async function signInWithLink(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('nav[aria-label="Console"]').waitFor();
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: string[];
}

/**
 * Runs axe-core in the page (WCAG 2.1 A/AA rules) and returns the serious and critical
 * violations. axe is evaluated through the DevTools protocol, which the page's CSP does not
 * govern, so the CSP under test stays on.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const result = await run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * A screenshot of the page: into docs/console/ when CONSOLE_SCREENSHOTS=update (docs/console.md
 * shows them), else into .data/console-screenshots/ (to look at after a run).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.CONSOLE_SCREENSHOTS === 'update' ? join('docs', 'console') : join('.data', 'console-screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
}
