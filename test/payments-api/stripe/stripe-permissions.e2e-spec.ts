/**
 * Restricted keys (rk_…) on Stripe's /v1, exactly as on /v2 (issue 35): every /v1 operation of
 * /openapi.json (tag stripe) needs its resource's "read" for GET and "write" otherwise, the
 * resource being that of the /v2 routes of the same objects; a refusal is 403 in Stripe's body
 * (the SDK raises StripePermissionError) naming what is needed; and a restricted key, like a
 * secret key, sees only its own account and mode.
 */
import { documentedRoutes } from '../../../libs/platform/src/docs/routes';
import { keyResourceOf } from '../../../apps/payments-api/src/accounts/permissions';
import Stripe from 'stripe';
import { FORM, resourceOf, STRIPE_RESOURCES } from './stripe-routes';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

interface DocOp {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly tags: readonly string[];
}

const RESOURCES = ['customers', 'payments', 'refunds', 'webhooks', 'events'] as const;
type Level = 'none' | 'read' | 'write';

describe('/v1 restricted keys: the permissions of /v2, per resource and method', () => {
  let s: StripeApp;
  let ops: DocOp[];
  let resourceOfOp: Map<DocOp, string>;

  const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
  const sk = (): Record<string, string> => bearer(s.secretKey);

  async function restricted(auth: Record<string, string>, permissions: Record<string, Level>, mode = 'test'): Promise<string> {
    const res = await s.t.app.inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: auth,
      payload: { mode, name: 'rk', permissions },
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ secret: string }>().secret;
  }

  beforeAll(async () => {
    s = await startStripeApp();
    const doc = (await s.t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId: string; tags?: string[] }>>;
    }>();
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        tags: op.tags ?? [],
      })),
    );
    const routes = documentedRoutes(s.t.app);
    resourceOfOp = new Map(
      ops.map((op) => {
        const route = routes.get(op.operationId);
        return [op, route === undefined ? 'no route' : (keyResourceOf(route.controller) ?? 'none declared')];
      }),
    );
  });
  afterAll(() => s.close());

  const stripeOps = (): DocOp[] => ops.filter((op) => op.tags.includes('stripe'));

  it('declares for every /v1 operation the resource of the /v2 routes of the same objects', () => {
    expect(stripeOps().length).toBeGreaterThanOrEqual(5);
    const got = stripeOps().map((op) => {
      const v2 = ops.find((o) => o.method === 'GET' && o.path === STRIPE_RESOURCES[resourceOf(op.path)]?.v2Path);
      return [`${op.method} ${op.path}`, resourceOfOp.get(op), v2 === undefined ? 'no /v2 route' : resourceOfOp.get(v2)];
    });
    expect(got).toEqual(got.map(([key, v1]) => [key, v1, v1]));
    for (const [, v1] of got) expect(RESOURCES as readonly unknown[]).toContain(v1);
  });

  it('a key with the resource "none", "read" or "write": GET needs read, the rest write; 403 in Stripe\'s body, as /v2 decides', async () => {
    const verdicts: string[] = [];
    const expected: string[] = [];
    const byResource = new Map<string, DocOp[]>();
    for (const op of stripeOps()) {
      const r = resourceOfOp.get(op) ?? '';
      byResource.set(r, [...(byResource.get(r) ?? []), op]);
    }
    for (const [resource, resourceOps] of byResource) {
      for (const level of ['none', 'read', 'write'] as const) {
        // every other resource "write": only this one's level decides
        const others: Record<string, Level> = Object.fromEntries(RESOURCES.map((r) => [r, 'write']));
        const key = bearer(await restricted(sk(), { ...others, [resource]: level }));
        for (const op of resourceOps) {
          const needed = op.method === 'GET' ? 'read' : 'write';
          const allowed = level === 'write' || (level === 'read' && needed === 'read');
          const prefix = STRIPE_RESOURCES[resourceOf(op.path)]?.prefix ?? 'x';
          const url = op.path.replace(/\{[^}]+\}/g, `${prefix}_ghost0000000000000000000`);
          const write = op.method !== 'GET' && op.method !== 'DELETE';
          const res = await s.t.app.inject({
            method: op.method as 'GET',
            url,
            headers: { ...key, ...(write ? FORM : {}) },
            ...(write ? { payload: '' } : {}),
          });
          const label = `${op.method} ${op.path} with ${resource} "${level}"`;
          if (res.statusCode === 403) {
            const e = res.json<{ error: { type?: string; code?: string; message?: string; request_id?: string } }>().error;
            const names = e.message?.includes(`${resource} "${needed}"`) === true;
            verdicts.push(`${label}: 403 ${e.type} ${e.code} ${names ? 'naming the need' : e.message} ${e.request_id ?? ''}`);
          } else verdicts.push(`${label}: passed`);
          expected.push(`${label}: ${allowed ? 'passed' : `403 invalid_request_error permission_denied naming the need `}`);
          // /v2 decides the same for the same key: its list (read) and its create (write)
          const v2Path = STRIPE_RESOURCES[resourceOf(op.path)]?.v2Path ?? '';
          const v2 = ops.find((o) => o.path === v2Path && o.method === (needed === 'read' ? 'GET' : 'POST'));
          if (v2 !== undefined) {
            const v2res = await s.t.app.inject({
              method: v2.method as 'GET',
              url: v2Path,
              headers: key,
              ...(v2.method === 'POST' ? { payload: {} } : {}),
            });
            verdicts.push(`${label}, /v2 ${v2.method} ${v2Path}: ${v2res.statusCode === 403 ? '403' : 'passed'}`);
            expected.push(`${label}, /v2 ${v2.method} ${v2Path}: ${allowed ? 'passed' : '403'}`);
          }
        }
      }
    }
    expect(verdicts).toEqual(expected);
    expect(verdicts.filter((v) => v.includes(': 403')).length).toBeGreaterThan(3);
  });

  it('the SDK raises StripePermissionError; a restricted key of another account or mode sees nothing of this one', async () => {
    const customer = await s.stripe.customers.create({ email: 'rk@shop.example' });
    const none = s.sdk(await restricted(sk(), { customers: 'none' }));
    const err = await stripeRejection(none.customers.retrieve(customer.id));
    expect([err.constructor.name, err.statusCode, err.type]).toEqual(['StripePermissionError', 403, 'StripePermissionError']);
    const reader = s.sdk(await restricted(sk(), { customers: 'read' }));
    expect((await reader.customers.retrieve(customer.id)).id).toBe(customer.id);
    await expect(reader.customers.update(customer.id, { name: 'x' })).rejects.toBeInstanceOf(Stripe.errors.StripePermissionError);
    const all: Record<string, Level> = Object.fromEntries(RESOURCES.map((r) => [r, 'write']));
    const liveRk = s.sdk(await restricted(bearer(s.liveKey), all, 'live'));
    const other = await s.newAccount('Another shop');
    const otherRk = s.sdk(await restricted(bearer(other.secretKey), all));
    for (const [who, sdk] of [
      ['live rk of the same account', liveRk],
      ['test rk of another account', otherRk],
    ] as const) {
      const missing = await stripeRejection(sdk.customers.retrieve(customer.id));
      expect([who, missing.constructor.name, missing.statusCode, missing.code]).toEqual([
        who,
        'StripeInvalidRequestError',
        404,
        'resource_missing',
      ]);
      const list = await sdk.customers.list({ limit: 100 });
      expect([who, list.data.map((c) => c.id)]).not.toEqual([who, expect.arrayContaining([customer.id])]);
    }
  });
});
