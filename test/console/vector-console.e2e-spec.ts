/**
 * The vector cloud console in real Chromium (contract, "Console (web UI)"): tables (create,
 * index state, delete behind a typed confirmation), a table's query box (by a stored row's id,
 * by a pasted vector, with a filter; the API's message for a bad filter), its query latency
 * chart, browsing rows page by page, and Settings → API Tokens (created, shown once, revoked).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import type { VectorConfig } from '../../apps/vector-api/src/config';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
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
import { consoleLink, newConsoleTenant } from '../support/console';
import { mulberry32 } from '../support/random';
import { waitFor } from '../support/wait';

const ADMIN = { authorization: 'Bearer dev-admin-key' };
const DIM = 8;
const ROWS = 30;

/** 30 rows of 8 dimensions: `doc-00` … `doc-29`, odd ones `lang: en`, even ones `lang: de`. */
const rand = mulberry32(20);
const rows = Array.from({ length: ROWS }, (_, i) => ({
  id: `doc-${String(i).padStart(2, '0')}`,
  embedding: Array.from({ length: DIM }, () => Math.round((rand() - 0.5) * 1e4) / 1e4),
  metadata: { lang: i % 2 === 1 ? 'en' : 'de', n: i },
}));

interface QueryAnswer {
  results: Array<{ id: string; score: number }>;
}

describe('vector cloud console in Chromium', () => {
  let t: TestApp<VectorConfig>;
  let browser: Browser;
  let origin: string;
  let projectId: string;
  let token: string;
  let cp: ConsolePage;
  let page: Page;

  /** A request of the project's API token (set up by the operator), through inject. */
  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, bearer = token) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

  /** The texts of one column of a table (by its caption), once they equal `expected` (or the last seen, after 20 s). */
  const column = async (table: Locator, index: number, expected: readonly string[]): Promise<string[]> => {
    let seen: string[] = [];
    try {
      await waitFor('the table to show the expected rows', async () => {
        seen = (await table.locator(`tbody tr td:nth-child(${index})`).allTextContents()).map((s) => s.trim());
        return JSON.stringify(seen) === JSON.stringify(expected);
      });
    } catch {
      // the assertion below shows what was there instead
    }
    return seen;
  };

  const runQuery = async (): Promise<void> => {
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/v1/tables/docs/query')),
      page.getByRole('button', { name: 'Run query' }).click(),
    ]);
  };

  beforeAll(async () => {
    t = await startTestApp(vectorService);
    origin = await serve(t.app);
    browser = await launchBrowser();
    projectId = await newConsoleTenant(t.app, 'vector', 'Vector Console Project');
    const created = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/projects/${projectId}/tokens`,
      headers: ADMIN,
      payload: { name: 'operator-made' },
    });
    expect(created.statusCode).toBe(201);
    token = created.json<{ token: string }>().token;
    expect((await api('POST', '/v1/tables', { name: 'docs', dimension: DIM, index: 'hnsw' })).statusCode).toBe(201);
    expect((await api('POST', '/v1/tables/docs/insert', { rows })).statusCode).toBe(201);
    cp = await newConsolePage(browser, origin);
    page = cp.page;
    const link = await consoleLink(t.app, 'vector', projectId);
    await signInWithLink(page, link.url.replace(/^http:\/\/[^/]+/, origin));
  });
  afterAll(async () => {
    await cp?.context.close();
    await browser?.close();
    await t?.close();
  });

  it('lists the tables with dimension, index, metric, rows and index state; creates one from a form', async () => {
    await page.getByRole('heading', { name: 'Tables', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/tables');
    const tables = page.getByRole('table', { name: 'Tables' });
    const docs = tables.getByRole('row').filter({ has: page.getByRole('link', { name: 'docs', exact: true }) });
    await docs.waitFor();
    const cells = (await docs.locator('td').allTextContents()).slice(0, 5);
    expect(cells).toEqual(['docs', '8', 'hnsw', 'cosine', '30']);
    expect(await docs.locator('.badge').textContent()).toMatch(/^(ready|building|exact)$/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'vector-tables');

    await page.getByRole('button', { name: 'Create table' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a table' });
    await dialog.getByLabel('Name').fill('from-ui');
    await dialog.getByLabel('Dimension').fill('4');
    await dialog.getByLabel('Index').selectOption('flat');
    await dialog.getByLabel('Metric').selectOption('euclidean');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Create table' }).click();
    await tables.getByRole('link', { name: 'from-ui', exact: true }).waitFor();
    await page.getByText('Table from-ui created.').waitFor();
    const made = await api('GET', '/v1/tables/from-ui');
    expect(made.json()).toMatchObject({ name: 'from-ui', dimension: 4, index: 'flat', metric: 'euclidean', rows: 0 });

    // the API's message for a refused create is shown in the dialog
    await page.getByRole('button', { name: 'Create table' }).click();
    await dialog.getByLabel('Name').fill('docs');
    await dialog.getByLabel('Dimension').fill('4');
    await dialog.getByRole('button', { name: 'Create table' }).click();
    await dialog.getByRole('alert').getByText("A table named 'docs' already exists.").waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    expect(unexpectedConsoleErrors(cp.problems, [409])).toEqual([]);
    expect(cp.problems.pageErrors).toEqual([]);
  }, 60_000);

  it('deletes a table only once its name is typed in the confirmation dialog', async () => {
    await page.getByRole('button', { name: 'Delete table from-ui' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete table from-ui' });
    const confirm = dialog.getByRole('button', { name: 'Delete this table' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel("Type the table's name to confirm").fill('from-u');
    expect(await confirm.isDisabled()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // typed key by key (the focus stays in the field), then confirmed with Enter
    const typed = dialog.getByLabel("Type the table's name to confirm");
    await typed.fill('');
    await typed.pressSequentially('from-ui');
    expect(await typed.inputValue()).toBe('from-ui');
    expect(await confirm.isDisabled()).toBe(false);
    await typed.press('Enter');
    await page.getByText('Table from-ui deleted.').waitFor();
    await page.getByRole('link', { name: 'from-ui', exact: true }).waitFor({ state: 'detached' });
    expect((await api('GET', '/v1/tables/from-ui')).statusCode).toBe(404);
    expect((await api('GET', '/v1/tables/docs')).statusCode).toBe(200);
  }, 60_000);

  it('queries a table by a stored row id, with a filter, and by a pasted vector; shows the latency chart', async () => {
    await page.getByRole('link', { name: 'docs', exact: true }).click();
    await page.getByRole('heading', { name: 'Table docs', level: 1 }).waitFor();
    const results = page.getByRole('table', { name: 'Query results' });

    // by id: the row itself first, score 1
    await page.getByLabel('Row id').fill('doc-07');
    await runQuery();
    const byId = (await api('POST', '/v1/tables/docs/query', { vector: rows[7]?.embedding, n: 10 })).json<QueryAnswer>();
    expect(byId.results[0]?.id).toBe('doc-07');
    expect(
      await column(
        results,
        2,
        byId.results.map((r) => r.id),
      ),
    ).toEqual(byId.results.map((r) => r.id));
    expect(
      await column(
        results,
        3,
        byId.results.map((r) => r.score.toFixed(4)),
      ),
    ).toEqual(byId.results.map((r) => r.score.toFixed(4)));
    expect((await results.locator('tbody tr td:nth-child(3)').first().textContent())?.trim()).toBe('1.0000');
    expect(JSON.parse((await results.locator('tbody tr td:nth-child(4)').first().textContent()) ?? '')).toEqual({
      lang: 'en',
      n: 7,
    });
    await page.getByText(/^10 results for row doc-07 in \d+ ms/).waitFor();

    // with a filter: only matching rows, as the API answers them
    await page.getByLabel('Top n').fill('5');
    await page.getByLabel('Filter (optional)').fill('{"lang": "de", "n": {"$gte": 10}}');
    await runQuery();
    const filtered = (
      await api('POST', '/v1/tables/docs/query', { vector: rows[7]?.embedding, n: 5, filter: { lang: 'de', n: { $gte: 10 } } })
    ).json<QueryAnswer>();
    expect(filtered.results).toHaveLength(5);
    expect(
      await column(
        results,
        2,
        filtered.results.map((r) => r.id),
      ),
    ).toEqual(filtered.results.map((r) => r.id));
    for (const meta of await results.locator('tbody tr td:nth-child(4)').allTextContents()) expect(meta).toContain('"lang":"de"');

    // a bad filter: the API's own message
    const badFilter = { lang: { $regex: 'e' } };
    const refused = await api('POST', '/v1/tables/docs/query', { vector: rows[7]?.embedding, n: 5, filter: badFilter });
    expect(refused.statusCode).toBe(400);
    const message = refused.json<{ error: { message: string } }>().error.message;
    await page.getByLabel('Filter (optional)').fill(JSON.stringify(badFilter));
    await runQuery();
    const banner = page.getByRole('alert').filter({ hasText: 'The query was refused' });
    await banner.waitFor();
    expect(await banner.locator('.error-message').textContent()).toBe(message);

    // a pasted vector of the wrong length: a clear message, and no request
    await page.getByRole('radio', { name: 'A pasted vector' }).check();
    await page.getByLabel('Filter (optional)').fill('');
    await page.getByRole('textbox', { name: 'Vector', exact: true }).fill('[0.1, 0.2, 0.3]');
    let queried = 0;
    const count = (r: { url(): string }): void => {
      if (r.url().endsWith('/query')) queried++;
    };
    page.on('request', count);
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('alert').filter({ hasText: "The vector has 3 values; this table's dimension is 8" }).waitFor();
    page.off('request', count);
    expect(queried).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Vector', exact: true }).getAttribute('aria-invalid')).toBe('true');

    // a pasted vector of the right length: that row first
    await page.getByRole('textbox', { name: 'Vector', exact: true }).fill(JSON.stringify(rows[3]?.embedding));
    await runQuery();
    await results.locator('tbody tr').first().filter({ hasText: 'doc-03' }).waitFor();
    await page.getByText(/^5 results for the pasted vector/).waitFor();

    // the latency chart: every query this instance answered for the table (3 from the page, 2 from the API)
    const chart = page.getByRole('img', { name: /Query latency of docs per minute/ });
    await chart.waitFor();
    await page.getByText(/\(5 queries\)/).waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'vector-table-query');
    await page.getByRole('heading', { name: 'Table docs', level: 1 }).scrollIntoViewIfNeeded();
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    await screenshot(page, 'vector-table');
    expect(unexpectedConsoleErrors(cp.problems, [400, 409])).toEqual([]);
    expect(cp.problems.pageErrors).toEqual([]);
  }, 90_000);

  it('browses rows page by page (Next / Previous) and by id prefix; finds rows similar to one', async () => {
    const table = page.getByRole('table', { name: 'Rows' });
    const pager = page.getByRole('navigation', { name: 'Row pages' });
    const ids = (from: number, to: number): string[] => rows.slice(from, to).map((r) => r.id);
    expect(await column(table, 1, ids(0, 20))).toEqual(ids(0, 20));
    expect(JSON.parse((await table.locator('tbody tr td:nth-child(2)').first().textContent()) ?? '')).toEqual({
      lang: 'de',
      n: 0,
    });
    await pager.getByRole('button', { name: 'Next' }).click();
    expect(await column(table, 1, ids(20, 30))).toEqual(ids(20, 30));
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    expect(await column(table, 1, ids(0, 20))).toEqual(ids(0, 20));

    // "Find similar" queries by that row at once: the row itself first
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/v1/tables/docs/query')),
      table.getByRole('button', { name: 'Find similar to doc-12' }).click(),
    ]);
    await page.getByText(/^5 results for row doc-12 in \d+ ms/).waitFor();
    const results = page.getByRole('table', { name: 'Query results' });
    await results.locator('tbody tr').first().filter({ hasText: 'doc-12' }).waitFor();
    expect(await page.getByLabel('Row id').inputValue()).toBe('doc-12');

    await page.getByRole('textbox', { name: 'Id prefix' }).fill('doc-1');
    await page.getByRole('button', { name: 'Show rows' }).click();
    expect(await column(table, 1, ids(10, 20))).toEqual(ids(10, 20));
    expect(await pager.count()).toBe(0);
    await page.getByRole('textbox', { name: 'Id prefix' }).fill('nothing-');
    await page.getByRole('button', { name: 'Show rows' }).click();
    await page.getByText('No rows with ids starting with nothing-').waitFor();
    expect(cp.problems.foreignRequests).toEqual([]);
  }, 60_000);

  it('Settings → API Tokens: a token is shown once, works, and stops working when revoked', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Settings → API Tokens' }).click();
    await page.getByRole('heading', { name: 'API Tokens', level: 1 }).waitFor();
    const list = page.getByRole('table', { name: 'API tokens' });
    await list.getByRole('cell', { name: 'operator-made', exact: true }).waitFor();

    await page.getByLabel('Token name').fill('ci-job');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    const value = (await secret.textContent()) ?? '';
    expect(value).toMatch(/^vt_/);
    await list.getByRole('cell', { name: 'ci-job', exact: true }).waitFor();
    expect(await list.getByRole('row').filter({ hasText: 'ci-job' }).locator('td').nth(1).textContent()).toBe(
      `vt_…${value.slice(-4)}`,
    );
    const works = await api('GET', '/v1/tables', undefined, value);
    expect(works.statusCode).toBe(200);
    expect(works.json<{ data: Array<{ name: string }> }>().data.map((x) => x.name)).toEqual(['docs']);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'vector-tokens');

    await page.reload();
    await page.getByRole('heading', { name: 'API Tokens', level: 1 }).waitFor();
    await list.getByRole('cell', { name: 'ci-job', exact: true }).waitFor();
    expect(await page.getByTestId('secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(value);

    await page.getByRole('button', { name: 'Revoke ci-job' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the token ci-job?' });
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('Token ci-job revoked.').waitFor();
    await list.getByRole('cell', { name: 'ci-job', exact: true }).waitFor({ state: 'detached' });
    expect((await api('GET', '/v1/tables', undefined, value)).statusCode).toBe(401);
    expect((await api('GET', '/v1/tables')).statusCode).toBe(200);

    expect(unexpectedConsoleErrors(cp.problems, [400, 409])).toEqual([]);
    expect(cp.problems.pageErrors).toEqual([]);
    expect(cp.problems.foreignRequests).toEqual([]);
  }, 60_000);

  it('is readable at 390 × 844: no sideways scrolling, navigation and query box reachable', async () => {
    const mobile = await newConsolePage(browser, origin, { width: 390, height: 844 });
    try {
      const link = await consoleLink(t.app, 'vector', projectId);
      await signInWithLink(mobile.page, link.url.replace(/^http:\/\/[^/]+/, origin));
      await mobile.page.getByRole('link', { name: 'docs', exact: true }).click();
      await mobile.page.getByRole('heading', { name: 'Table docs', level: 1 }).waitFor();
      await mobile.page.getByRole('table', { name: 'Rows' }).waitFor();
      const widths = await mobile.page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } })
          .document.documentElement;
        return { scroll: root.scrollWidth, client: root.clientWidth };
      });
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      expect(await mobile.page.getByRole('button', { name: 'Run query' }).isVisible()).toBe(true);
      await screenshot(mobile.page, 'vector-table-mobile');
      expect(await seriousA11yViolations(mobile.page)).toEqual([]);
      expect(unexpectedConsoleErrors(mobile.problems)).toEqual([]);
      expect(mobile.problems.foreignRequests).toEqual([]);
    } finally {
      await mobile.context.close();
    }
  }, 60_000);
  it('pages through the tables from the API (GET /v1/tables with starting_after), 20 at a time', async () => {
    // 'docs' and these 21: 22 tables, so a second page of 2 (names sort after 'docs' in byte order).
    const names = Array.from({ length: 21 }, (_, i) => `zz-page-${String(i).padStart(2, '0')}`);
    for (const name of names) expect((await api('POST', '/v1/tables', { name, dimension: 2 })).statusCode).toBe(201);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tables' }).click();
    await page.getByRole('heading', { name: 'Tables', level: 1 }).waitFor();
    const tables = page.getByRole('table', { name: 'Tables' });
    const pager = page.getByRole('navigation', { name: 'Table pages' });
    const all = ['docs', ...names];
    expect(await column(tables, 1, all.slice(0, 20))).toEqual(all.slice(0, 20));
    const [next] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/v1/tables?') && r.url().includes('starting_after=zz-page-18')),
      pager.getByRole('button', { name: 'Next' }).click(),
    ]);
    expect(next.status()).toBe(200);
    expect(await column(tables, 1, all.slice(20))).toEqual(all.slice(20));
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    expect(await column(tables, 1, all.slice(0, 20))).toEqual(all.slice(0, 20));
    for (const name of names) expect((await api('DELETE', `/v1/tables/${name}`)).statusCode).toBe(200);
  }, 90_000);
});
