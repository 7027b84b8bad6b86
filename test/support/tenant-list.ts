/**
 * The checks every operator's tenant list shares (GET /admin/v1/partners, /admin/v1/accounts,
 * /admin/v1/projects; docs/decisions.md 389–398): newest-first cursor pages, the name prefix
 * search with LIKE's wildcards as plain characters, and the 400s of bad parameters. Each
 * service's spec adds its counts and its tenant credential.
 */
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const ADMIN_HEADERS = { authorization: 'Bearer dev-admin-key' };

export interface ListedTenant {
  id: string;
  name: string;
  created_at: string;
  counts: Record<string, number>;
}

export interface TenantPage {
  object: 'list';
  data: ListedTenant[];
  has_more: boolean;
}

export interface TenantListCase {
  readonly app: () => NestFastifyApplication;
  /** e.g. `/admin/v1/partners` */
  readonly path: string;
  /** Creates a tenant by that name (through the admin API) and returns its id. */
  readonly create: (name: string) => Promise<string>;
}

interface Answer<T> {
  status: number;
  body: T;
}

export async function listTenants<T = TenantPage>(
  app: NestFastifyApplication,
  path: string,
  query: Record<string, string>,
  headers: Record<string, string> = ADMIN_HEADERS,
): Promise<Answer<T>> {
  const qs = new URLSearchParams(query).toString();
  const res = await app.inject({ method: 'GET', url: qs === '' ? path : `${path}?${qs}`, headers });
  return { status: res.statusCode, body: res.json<T>() };
}

/** Tenants by id (for comparing a page's content where its order is checked elsewhere). */
export const byId = <T extends { id: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A name prefix no other test's tenant starts with (the test databases are shared within a run). */
export const uniqueTag = (): string => `t${randomBytes(4).toString('hex')}`;

interface ErrorBody {
  error: { code: string; param?: string; message: string };
}

/** Registers the shared `it` blocks inside the caller's `describe`. */
export function tenantListCases(c: TenantListCase): void {
  const list = <T = TenantPage>(query: Record<string, string>) => listTenants<T>(c.app(), c.path, query);

  it('pages newest first (created_at, then id, descending) with has_more, and a prefix is matched ignoring case', async () => {
    const tag = uniqueTag();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await c.create(`${tag.toUpperCase()} Tenant ${i}`));
    const seen: ListedTenant[] = [];
    const pages: boolean[] = [];
    let after: string | undefined;
    for (let n = 0; n < 5; n++) {
      const page = await list({
        limit: '2',
        name_prefix: `${tag} tenant`,
        ...(after === undefined ? {} : { starting_after: after }),
      });
      expect(page.status).toBe(200);
      expect(page.body.object).toBe('list');
      seen.push(...page.body.data);
      pages.push(page.body.has_more);
      if (!page.body.has_more) break;
      after = page.body.data.at(-1)?.id;
    }
    expect(pages).toEqual([true, true, false]);
    expect(seen.map((t) => t.id).sort()).toEqual([...ids].sort());
    const newestFirst = [...seen].sort(
      (a, b) => b.created_at.localeCompare(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0),
    );
    expect(seen.map((t) => t.id)).toEqual(newestFirst.map((t) => t.id));
    for (const t of seen) expect(t.name.startsWith(`${tag.toUpperCase()} Tenant `)).toBe(true);
    // limit defaults to 10: all five on one page
    const all = await list({ name_prefix: tag });
    expect([all.body.data.length, all.body.has_more]).toEqual([5, false]);
    // without a prefix, the newest tenants of the whole service come first
    const first = await list({ limit: '1' });
    expect(first.body.data.map((t) => t.id)).toEqual([seen[0]?.id]);
    expect(first.body.has_more).toBe(true);
  });

  it('treats %, _ and \\ in name_prefix as the characters themselves', async () => {
    const tag = uniqueTag();
    const percent = await c.create(`${tag}50%_off`);
    const plain = await c.create(`${tag}50xyoff`);
    const backslash = await c.create(`${tag}5\\0`);
    const names = async (prefix: string): Promise<string[]> => {
      const res = await list({ name_prefix: prefix });
      expect(res.status).toBe(200);
      return res.body.data.map((t) => t.id).sort();
    };
    expect(await names(`${tag}50%`)).toEqual([percent]);
    expect(await names(`${tag}50%_`)).toEqual([percent]);
    expect(await names(`${tag}50_`)).toEqual([]);
    expect(await names(`${tag}5\\`)).toEqual([backslash]);
    expect(await names(`${tag}5`)).toEqual([percent, plain, backslash].sort());
    expect(await names(`${tag}%`)).toEqual([]);
  });

  it('refuses a bad limit, an unknown starting_after and an empty, too long or invisible-character prefix with 400', async () => {
    for (const limit of ['0', '101', 'ten', '2.5']) {
      const res = await list<ErrorBody>({ limit });
      expect([limit, res.status, res.body.error.code, res.body.error.param]).toEqual([limit, 400, 'parameter_invalid', 'limit']);
    }
    const unknown = await list<ErrorBody>({ starting_after: 'nope_123' });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.param]).toEqual([
      400,
      'resource_missing',
      'starting_after',
    ]);
    expect(unknown.body.error.message).toContain("'nope_123'");
    for (const prefix of ['', 'x'.repeat(201), 'a\u202eb']) {
      const res = await list<ErrorBody>({ name_prefix: prefix });
      expect([prefix.length, res.status, res.body.error.code, res.body.error.param]).toEqual([
        prefix.length,
        400,
        'parameter_invalid',
        'name_prefix',
      ]);
    }
    expect((await list({ name_prefix: 'x'.repeat(200) })).status).toBe(200);
    const extra = await list<ErrorBody>({ order: 'name' });
    expect([extra.status, extra.body.error.code]).toEqual([400, 'parameter_unknown']);
  });

  it('refuses a request without the admin key with 401', async () => {
    const res = await listTenants<ErrorBody>(c.app(), c.path, {}, {});
    expect([res.status, res.body.error.code]).toEqual([401, 'authentication_required']);
  });
}
