/**
 * payments-api tenancy: every object belongs to one account and one mode. Another
 * account's key, and the live key of the same account, can never read, change, filter by,
 * page through, charge, refund or learn the existence of the victim's test-mode objects.
 * Every payments-key route of /openapi.json must have a case below, and every case runs with
 * each attacker's API key AND with its console session (the dashboard acts as the secret key
 * of the mode its Console-Mode header names): the session is a principal like the key.
 *
 * Stripe's `/v1` (tag `stripe`, which takes keys only, by Bearer or Basic) is covered
 * generically: every /v1 operation of /openapi.json is classified (create, list, search, an
 * object's route) and run against the victim's objects of its resource with the other
 * account's keys and the other mode's key, each as Bearer and as Basic: Stripe's 404 body for
 * an object, the same as for an id that never existed; no victim object in a list, a search
 * or a filtered list; a cursor or a create naming the victim's object refused.
 */
import type { LightMyRequestResponse } from 'fastify';
import { type Account, newAccount, newCustomer, type PaymentsApp, startPayments } from '../payments-api/payments-context';
import { consoleSession } from '../support/console';
import {
  basicOf,
  CREATION_ORDER,
  FORM,
  resourceOf,
  STRIPE_RESOURCES,
  stripeErrorOf,
  stripeOpKind,
} from '../payments-api/stripe/stripe-routes';
import {
  expectNotFound,
  expectStripeNotFound,
  isStripeOperation,
  normalisedError,
  openApiOperations,
  opKey,
  type Operation,
  snapshotDatabase,
  waitFor,
  type ErrorBody,
} from './support';

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

interface Attacker {
  readonly name: string;
  readonly auth: Record<string, string>;
  /** The mode the credential acts in. */
  readonly mode: 'test' | 'live';
  /** The victim's own account (another mode): keys of the account are its own by design. */
  readonly sameAccount: boolean;
}

describe('payments-api: account and mode isolation', () => {
  let t: PaymentsApp;
  let victim: Account;
  let other: Account;
  let attackers: Attacker[];
  let victimRk: Record<string, string>;
  let victimLiveKeyId: string;
  const v: Record<string, string> = {};
  const VICTIM_EMAIL = 'victim.person@victim.example';

  const call = (auth: Record<string, string>, method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) });

  /** Strings only the victim's data contains. */
  const markers = (): string[] => [victim.id, VICTIM_EMAIL, 'Victim Name', 'victim-hooks', 'whsec_', 'victim-order'];

  /** 404 resource_missing, none of the victim's data, and the same answer as for ids that never existed. */
  async function refused(who: Attacker, label: string, method: Method, url: string, ids: string[], payload?: object) {
    const tag = `${who.name}: ${label}`;
    const res = await call(who.auth, method, url, payload);
    expectNotFound(tag, res);
    for (const marker of markers()) expect([tag, marker, res.body.includes(marker)]).toEqual([tag, marker, false]);
    const ghosts = ids.map((id) => `${id.split('_')[0]}_ghost0000000000000000000`);
    const ghostUrl = ids.reduce((u, id, i) => u.split(id).join(ghosts[i]), url);
    const ghost = await call(who.auth, method, ghostUrl, payload);
    expect([tag, normalisedError(res, ids)]).toEqual([tag, normalisedError(ghost, ghosts)]);
  }

  /** A list answer that holds none of the victim's objects. */
  async function listWithout(who: Attacker, url: string, expectEmpty = false): Promise<void> {
    const res = await call(who.auth, 'GET', url);
    expect([who.name, url, res.statusCode]).toEqual([who.name, url, 200]);
    const ids = res.json<{ data: Array<{ id: string }> }>().data.map((o) => o.id);
    for (const id of Object.values(v)) expect([who.name, url, ids.includes(id)]).toEqual([who.name, url, false]);
    if (expectEmpty) expect([who.name, url, ids]).toEqual([who.name, url, []]);
    for (const marker of markers()) expect([who.name, url, res.body.includes(marker)]).toEqual([who.name, url, false]);
  }

  /** A cursor naming the victim's object is "not one of yours": 400 resource_missing naming the parameter. */
  async function cursorRefused(who: Attacker, url: string, param: string): Promise<void> {
    const res = await call(who.auth, 'GET', url);
    expect([who.name, url, res.statusCode, res.json<ErrorBody>().error.code, res.json<ErrorBody>().error.param]).toEqual([
      who.name,
      url,
      400,
      'resource_missing',
      param,
    ]);
  }

  beforeAll(async () => {
    t = await startPayments({ WEBHOOK_SWEEP_INTERVAL_MS: '200' });
    victim = await newAccount(t, 'Victim Shop');
    other = await newAccount(t, 'Other Shop');
    // console sessions: cookie + CSRF token; Console-Mode picks the mode (test when absent)
    const otherConsole = (await consoleSession(t.app, 'payments', other.id)).headers;
    const victimConsole = (await consoleSession(t.app, 'payments', victim.id)).headers;
    attackers = [
      { name: 'another account (test key)', auth: other.test, mode: 'test', sameAccount: false },
      { name: 'another account (live key)', auth: other.live, mode: 'live', sameAccount: false },
      { name: 'same account, live key', auth: victim.live, mode: 'live', sameAccount: true },
      { name: 'another account (console session, test mode)', auth: otherConsole, mode: 'test', sameAccount: false },
      {
        name: 'another account (console session, live mode)',
        auth: { ...otherConsole, 'console-mode': 'live' },
        mode: 'live',
        sameAccount: false,
      },
      {
        name: 'same account, console session in live mode',
        auth: { ...victimConsole, 'console-mode': 'live' },
        mode: 'live',
        sameAccount: true,
      },
    ];
    const ep = await call(victim.test, 'POST', '/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/victim-hooks' });
    expect(ep.statusCode).toBe(201);
    v['endpoint'] = ep.json<{ id: string }>().id;
    const liveEp = await call(victim.live, 'POST', '/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/live-hooks' });
    expect(liveEp.statusCode).toBe(201);
    v['liveEndpoint'] = liveEp.json<{ id: string }>().id;

    v['customer'] = await newCustomer(t, victim.test, {
      email: VICTIM_EMAIL,
      name: 'Victim Name',
      metadata: { crm: 'victim-crm' },
    });
    const pay = await call(victim.test, 'POST', '/v2/payments', {
      amount: 5000,
      currency: 'gbp',
      customer_id: v['customer'],
      description: 'victim-order 1',
    });
    expect(pay.statusCode).toBe(201);
    v['payment'] = pay.json<{ id: string }>().id;
    const pay2 = await call(victim.test, 'POST', '/v2/payments', {
      amount: 7000,
      currency: 'gbp',
      customer_id: v['customer'],
      description: 'victim-order 2',
    });
    v['payment2'] = pay2.json<{ id: string }>().id;
    const authorization = await call(victim.test, 'POST', '/v2/payments', {
      amount: 3000,
      currency: 'gbp',
      customer_id: v['customer'],
      capture_method: 'manual',
      description: 'victim-order 3',
    });
    expect(authorization.json<{ status: string }>().status).toBe('requires_capture');
    v['authorization'] = authorization.json<{ id: string }>().id;
    const refund = await call(victim.test, 'POST', '/v2/refunds', {
      payment_id: v['payment'],
      amount: 1000,
      metadata: { note: 'victim-order refund' },
    });
    expect(refund.statusCode).toBe(201);
    v['refund'] = refund.json<{ id: string }>().id;
    const events = await call(victim.test, 'GET', '/v2/events?type=payment.succeeded&limit=1');
    v['event'] = events.json<{ data: Array<{ id: string }> }>().data[0]?.id;
    expect(v['event']).toMatch(/^evt_/);
    const rk = await call(victim.test, 'POST', '/v2/api-keys', {
      mode: 'test',
      name: 'victim reporting',
      permissions: { payments: 'read' },
    });
    expect(rk.statusCode).toBe(201);
    v['apiKey'] = rk.json<{ id: string }>().id;
    victimRk = { authorization: `Bearer ${rk.json<{ secret: string }>().secret}` };
    const liveKeys = await call(victim.live, 'GET', '/v2/api-keys?limit=100');
    victimLiveKeyId =
      liveKeys.json<{ data: Array<{ id: string; mode: string }> }>().data.find((k) => k.mode === 'live')?.id ?? '';
    expect(victimLiveKeyId).toMatch(/^key_/);
    v['delivery'] = await waitFor('a delivery to the victim endpoint', async () => {
      const res = await call(victim.test, 'GET', `/v2/webhook-endpoints/${v['endpoint']}/deliveries`);
      return res.json<{ data: Array<{ id: string }> }>().data[0]?.id;
    });
  });

  afterAll(async () => {
    await t.close();
  });

  const eachAttacker = async (fn: (who: Attacker) => Promise<void>): Promise<void> => {
    for (const who of attackers) await fn(who);
  };
  /**
   * Keys belong to the account, not to one mode: a live secret key manages the test keys of
   * its own account by design (docs/decisions.md, 96), so /v2/api-keys is checked against the
   * other account's keys; the test key against the same account's live keys is the mode case.
   */
  const eachOtherAccount = async (fn: (who: Attacker) => Promise<void>): Promise<void> => {
    for (const who of attackers.filter((w) => !w.sameAccount)) await fn(who);
  };
  const victimKeysWork = async (): Promise<void> => {
    for (const auth of [victim.test, victim.live, victimRk]) {
      const res = await call(auth, 'GET', auth === victimRk ? '/v2/payments' : '/v2/customers');
      expect(res.statusCode).toBe(200);
    }
  };
  const we = (suffix = ''): string => `/v2/webhook-endpoints/${v['endpoint']}${suffix}`;

  const CASES: Record<string, () => Promise<void>> = {
    'POST /v2/customers': () =>
      eachAttacker(async (who) => {
        const res = await call(who.auth, 'POST', '/v2/customers', { email: 'mine@attacker.example' });
        expect(res.statusCode).toBe(201);
        expectNotFound(
          `victim reads ${who.name}'s customer`,
          await call(victim.test, 'GET', `/v2/customers/${res.json<{ id: string }>().id}`),
        );
      }),
    'GET /v2/customers': () =>
      eachAttacker(async (who) => {
        await listWithout(who, '/v2/customers?limit=100');
        await listWithout(who, `/v2/customers?email=${encodeURIComponent(VICTIM_EMAIL)}`, true);
        await cursorRefused(who, `/v2/customers?starting_after=${v['customer']}`, 'starting_after');
        await cursorRefused(who, `/v2/customers?ending_before=${v['customer']}`, 'ending_before');
      }),
    'GET /v2/customers/{id}': () =>
      eachAttacker((who) => refused(who, 'get customer', 'GET', `/v2/customers/${v['customer']}`, [v['customer'] ?? ''])),
    'POST /v2/customers/{id}': () =>
      eachAttacker((who) =>
        refused(who, 'update customer', 'POST', `/v2/customers/${v['customer']}`, [v['customer'] ?? ''], {
          name: 'pwned',
          metadata: { crm: '' },
        }),
      ),
    'DELETE /v2/customers/{id}': () =>
      eachAttacker((who) => refused(who, 'delete customer', 'DELETE', `/v2/customers/${v['customer']}`, [v['customer'] ?? ''])),
    'POST /v2/payments': () =>
      eachAttacker(async (who) => {
        const before = await snapshotDatabase(t.db.url);
        const res = await call(who.auth, 'POST', '/v2/payments', { amount: 100, currency: 'gbp', customer_id: v['customer'] });
        const error = res.json<ErrorBody>().error;
        // test keys: the customer is not theirs; live keys: no live processor (403, checked first)
        const expected =
          who.mode === 'test' ? [400, 'resource_missing', 'customer_id'] : [403, 'live_mode_not_enabled', undefined];
        expect([who.name, res.statusCode, error.code, error.param]).toEqual([who.name, ...expected]);
        const after = await snapshotDatabase(t.db.url);
        expect([after['payments'], after['webhook_events']]).toEqual([before['payments'], before['webhook_events']]);
      }),
    'GET /v2/payments': () =>
      eachAttacker(async (who) => {
        await listWithout(who, '/v2/payments?limit=100');
        await listWithout(who, `/v2/payments?customer_id=${v['customer']}`, true);
        await listWithout(who, `/v2/payments?customer_id=${v['customer']}&created[gte]=0`, true);
        await listWithout(who, '/v2/payments?status=requires_capture&limit=100');
        await cursorRefused(who, `/v2/payments?starting_after=${v['payment']}`, 'starting_after');
        await cursorRefused(who, `/v2/payments?ending_before=${v['payment2']}`, 'ending_before');
      }),
    'GET /v2/payments/volume': () =>
      eachAttacker(async (who) => {
        // the victim's test volume is there; no attacker's window holds any of it
        const mine = await call(victim.test, 'GET', '/v2/payments/volume?currency=gbp');
        expect(mine.json<{ data: Array<{ amount: number }> }>().data.map((d) => d.amount)).toEqual([12000]);
        for (const url of ['/v2/payments/volume', '/v2/payments/volume?days=90&currency=gbp']) {
          const res = await call(who.auth, 'GET', url);
          expect([who.name, url, res.statusCode, res.json<{ data: unknown[] }>().data]).toEqual([who.name, url, 200, []]);
        }
      }),
    'GET /v2/payments/{id}': () =>
      eachAttacker((who) => refused(who, 'get payment', 'GET', `/v2/payments/${v['payment']}`, [v['payment'] ?? ''])),
    'POST /v2/payments/{id}': () =>
      eachAttacker((who) =>
        refused(who, 'update payment', 'POST', `/v2/payments/${v['payment']}`, [v['payment'] ?? ''], {
          description: 'pwned',
          metadata: { order: 'pwned' },
        }),
      ),
    'POST /v2/payments/{id}/capture': () =>
      eachAttacker((who) =>
        refused(who, 'capture authorization', 'POST', `/v2/payments/${v['authorization']}/capture`, [v['authorization'] ?? ''], {
          amount_to_capture: 100,
        }),
      ),
    'POST /v2/payments/{id}/cancel': () =>
      eachAttacker((who) =>
        refused(who, 'cancel authorization', 'POST', `/v2/payments/${v['authorization']}/cancel`, [v['authorization'] ?? ''], {
          cancellation_reason: 'fraudulent',
        }),
      ),
    'POST /v2/refunds/{id}': () =>
      eachAttacker((who) =>
        refused(who, 'update refund', 'POST', `/v2/refunds/${v['refund']}`, [v['refund'] ?? ''], { metadata: { note: '' } }),
      ),
    'POST /v2/refunds': () =>
      eachAttacker(async (who) => {
        const res = await call(who.auth, 'POST', '/v2/refunds', { payment_id: v['payment2'], amount: 100 });
        const error = res.json<ErrorBody>().error;
        expect([who.name, res.statusCode, error.code, error.param]).toEqual([who.name, 400, 'resource_missing', 'payment_id']);
        const mine = await call(victim.test, 'GET', `/v2/payments/${v['payment2']}`);
        expect(mine.json<{ amount_refunded: number }>().amount_refunded).toBe(0);
      }),
    'GET /v2/refunds': () =>
      eachAttacker(async (who) => {
        await listWithout(who, '/v2/refunds?limit=100');
        await listWithout(who, `/v2/refunds?payment_id=${v['payment']}`, true);
        await cursorRefused(who, `/v2/refunds?starting_after=${v['refund']}`, 'starting_after');
      }),
    'GET /v2/refunds/{id}': () =>
      eachAttacker((who) => refused(who, 'get refund', 'GET', `/v2/refunds/${v['refund']}`, [v['refund'] ?? ''])),
    'POST /v2/webhook-endpoints': () =>
      eachAttacker(async (who) => {
        const res = await call(who.auth, 'POST', '/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/attacker' });
        expect(res.statusCode).toBe(201);
        const id = res.json<{ id: string }>().id;
        expectNotFound(`victim reads ${who.name}'s endpoint`, await call(victim.test, 'GET', `/v2/webhook-endpoints/${id}`));
        await call(who.auth, 'DELETE', `/v2/webhook-endpoints/${id}`);
      }),
    'GET /v2/webhook-endpoints': () =>
      eachAttacker(async (who) => {
        const res = await call(who.auth, 'GET', '/v2/webhook-endpoints');
        expect(res.json<{ data: Array<{ id: string }> }>().data.map((e) => e.id)).not.toContain(v['endpoint']);
        expect(res.body).not.toContain('whsec_');
      }),
    'GET /v2/webhook-endpoints/{id}': () =>
      eachAttacker((who) => refused(who, 'get endpoint', 'GET', we(), [v['endpoint'] ?? ''])),
    'DELETE /v2/webhook-endpoints/{id}': () =>
      eachAttacker((who) => refused(who, 'delete endpoint', 'DELETE', we(), [v['endpoint'] ?? ''])),
    'POST /v2/webhook-endpoints/{id}/rotate-secret': () =>
      eachAttacker((who) => refused(who, 'rotate secret', 'POST', we('/rotate-secret'), [v['endpoint'] ?? ''])),
    'POST /v2/webhook-endpoints/{id}/enable': () =>
      eachAttacker((who) => refused(who, 'enable endpoint', 'POST', we('/enable'), [v['endpoint'] ?? ''])),
    'GET /v2/webhook-endpoints/{id}/deliveries': () =>
      eachAttacker((who) => refused(who, 'list deliveries', 'GET', we('/deliveries'), [v['endpoint'] ?? ''])),
    'POST /v2/webhook-endpoints/{id}/deliveries/{delivery_id}/retry': () =>
      eachAttacker(async (who) => {
        await refused(who, 'retry delivery', 'POST', we(`/deliveries/${v['delivery']}/retry`), [
          v['endpoint'] ?? '',
          v['delivery'] ?? '',
        ]);
        // the victim's delivery through the attacker's own endpoint
        const own = await call(who.auth, 'POST', '/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/attacker-own' });
        const ownId = own.json<{ id: string }>().id;
        await refused(
          who,
          'retry victim delivery on own endpoint',
          'POST',
          `/v2/webhook-endpoints/${ownId}/deliveries/${v['delivery']}/retry`,
          [v['delivery'] ?? ''],
        );
        const page = await call(who.auth, 'GET', `/v2/webhook-endpoints/${ownId}/deliveries?starting_after=${v['delivery']}`);
        expect(page.body).not.toContain(v['delivery']);
        await call(who.auth, 'DELETE', `/v2/webhook-endpoints/${ownId}`);
      }),
    'GET /v2/events': () =>
      eachAttacker(async (who) => {
        await listWithout(who, '/v2/events?limit=100');
        await listWithout(who, '/v2/events?type=payment.*', true);
        await cursorRefused(who, `/v2/events?starting_after=${v['event']}`, 'starting_after');
        await cursorRefused(who, `/v2/events?ending_before=${v['event']}`, 'ending_before');
      }),
    'GET /v2/events/{id}': () =>
      eachAttacker((who) => refused(who, 'get event', 'GET', `/v2/events/${v['event']}`, [v['event'] ?? ''])),
    'GET /v2/webhook-endpoints/event-types': () =>
      eachAttacker(async (who) => {
        const [theirs, mine] = [
          await call(who.auth, 'GET', '/v2/webhook-endpoints/event-types'),
          await call(victim.test, 'GET', '/v2/webhook-endpoints/event-types'),
        ];
        expect(theirs.statusCode).toBe(200);
        expect(theirs.json()).toEqual(mine.json()); // the service's catalogue, the same for every key
      }),
    'PATCH /v2/webhook-endpoints/{id}': () =>
      eachAttacker((who) =>
        refused(who, 'update endpoint', 'PATCH', we(), [v['endpoint'] ?? ''], {
          url: 'http://127.0.0.1:9/stolen',
          disabled: true,
        }),
      ),
    'POST /v2/webhook-endpoints/{id}/test': () =>
      eachAttacker((who) => refused(who, 'send a test event', 'POST', we('/test'), [v['endpoint'] ?? ''], {})),
    'GET /v2/webhook-endpoints/{id}/stats': () =>
      eachAttacker((who) => refused(who, 'read endpoint stats', 'GET', we('/stats'), [v['endpoint'] ?? ''])),
    'POST /v2/webhook-endpoints/{id}/recover': () =>
      eachAttacker((who) =>
        refused(who, 'recover', 'POST', we('/recover'), [v['endpoint'] ?? ''], { since: '2020-01-01T00:00:00Z' }),
      ),
  };

  Object.assign(CASES, {
    'POST /v2/api-keys/roll': () =>
      eachOtherAccount(async (who) => {
        // the replaced key keeps working a week, but in its grace period it can no longer manage
        // keys (credential_in_grace): the suite goes on with the new test key of the other account
        const res = await call(who.auth, 'POST', '/v2/api-keys/roll', { mode: 'test', expires_in_hours: 168 });
        expect(res.statusCode).toBe(201);
        const id = res.json<{ id: string }>().id;
        Object.assign(other.test, { authorization: `Bearer ${res.json<{ secret: string }>().secret}` });
        expectNotFound(`victim revokes ${who.name}'s key`, await call(victim.test, 'DELETE', `/v2/api-keys/${id}`));
        await victimKeysWork();
        const mine = await call(victim.live, 'GET', '/v2/api-keys?limit=100');
        expect(mine.json<{ data: Array<{ id: string; expires_at: string | null }> }>().data.map((k) => k.expires_at)).toEqual(
          mine.json<{ data: Array<{ id: string }> }>().data.map(() => null),
        );
      }),
    'POST /v2/api-keys': () =>
      eachOtherAccount(async (who) => {
        const res = await call(who.auth, 'POST', '/v2/api-keys', { mode: 'test', name: 'attacker', permissions: {} });
        expect(res.statusCode).toBe(201);
        const id = res.json<{ id: string }>().id;
        expectNotFound(`victim revokes ${who.name}'s restricted key`, await call(victim.test, 'DELETE', `/v2/api-keys/${id}`));
        const list = await call(victim.live, 'GET', '/v2/api-keys?limit=100');
        expect(list.json<{ data: Array<{ id: string }> }>().data.map((k) => k.id)).not.toContain(id);
      }),
    'GET /v2/api-keys': async () => {
      await eachOtherAccount(async (who) => {
        await listWithout(who, '/v2/api-keys?limit=100');
        expect((await call(who.auth, 'GET', '/v2/api-keys')).body).not.toContain('victim reporting');
        await cursorRefused(who, `/v2/api-keys?starting_after=${v['apiKey']}`, 'starting_after');
        await cursorRefused(who, `/v2/api-keys?ending_before=${v['apiKey']}`, 'ending_before');
      });
      // the mode case: the test key sees no live key of its own account
      const res = await call(victim.test, 'GET', '/v2/api-keys?limit=100');
      expect(res.json<{ data: Array<{ mode: string }> }>().data.map((k) => k.mode)).not.toContain('live');
      await cursorRefused(
        { name: 'test key', auth: victim.test, mode: 'test', sameAccount: true },
        `/v2/api-keys?starting_after=${victimLiveKeyId}`,
        'starting_after',
      );
    },
    'DELETE /v2/api-keys/{id}': async () => {
      await eachOtherAccount((who) => refused(who, 'revoke key', 'DELETE', `/v2/api-keys/${v['apiKey']}`, [v['apiKey'] ?? '']));
      // the mode case: a test key cannot revoke a live key of its own account (403)
      const res = await call(victim.test, 'DELETE', `/v2/api-keys/${victimLiveKeyId}`);
      expect([res.statusCode, res.json<ErrorBody>().error.code]).toEqual([403, 'permission_denied']);
      await victimKeysWork();
    },
  });

  it('has an isolation case for every payments-key operation of /openapi.json (and no stale case)', async () => {
    const ops = (await openApiOperations(t.app))
      .filter((op) => op.security.includes('payments_key') && !isStripeOperation(op))
      .map(opKey);
    expect(ops.filter((op) => /\{/.test(op)).length).toBeGreaterThan(8);
    expect([...ops].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s: other accounts and the other mode cannot reach the victim', async (key) => {
    await CASES[key]?.();
  });

  it("the attempts left the victim's objects as they were", async () => {
    // the attempts that would change something, made here so this test stands on its own
    for (const key of Object.keys(CASES).filter((k) => /^(POST|DELETE) /.test(k))) await CASES[key]?.();
    const customer = await call(victim.test, 'GET', `/v2/customers/${v['customer']}`);
    expect(customer.json()).toMatchObject({ id: v['customer'], name: 'Victim Name', metadata: { crm: 'victim-crm' } });
    const payment = await call(victim.test, 'GET', `/v2/payments/${v['payment']}`);
    expect(payment.json()).toMatchObject({ amount: 5000, amount_refunded: 1000, description: 'victim-order 1', metadata: {} });
    const authorization = await call(victim.test, 'GET', `/v2/payments/${v['authorization']}`);
    expect(authorization.json()).toMatchObject({ status: 'requires_capture', amount_capturable: 3000, amount_received: 0 });
    const refund = await call(victim.test, 'GET', `/v2/refunds/${v['refund']}`);
    expect(refund.json()).toMatchObject({ metadata: { note: 'victim-order refund' } });
    const endpoint = await call(victim.test, 'GET', we());
    expect(endpoint.json()).toMatchObject({ id: v['endpoint'], status: 'enabled', previous_secret_expires_at: null });
    await victimKeysWork();
  });

  describe("Stripe's /v1 (every operation tagged stripe)", () => {
    let stripeOps: Operation[];
    /** The victim's /v1 objects, by resource (made through /v1 where its create exists, plus /v2's). */
    const mine: Record<string, string[]> = {};
    let serial = 0;
    /** The key attackers of the /v1 cases (a console session is refused on /v1 outright: console-csrf), Bearer and Basic. */
    let keyAttackers: Attacker[];

    const send = (auth: Record<string, string>, method: Method, url: string, form?: string): Promise<LightMyRequestResponse> =>
      t.app.inject({
        method,
        url,
        headers: { ...auth, ...(form === undefined ? {} : FORM) },
        ...(form === undefined ? {} : { payload: form }),
      });

    const has = (method: string, path: string): boolean => stripeOps.some((op) => op.method === method && op.path === path);

    beforeAll(async () => {
      stripeOps = (await openApiOperations(t.app)).filter(isStripeOperation);
      keyAttackers = attackers
        .filter((a) => a.auth['authorization'] !== undefined)
        .flatMap((a) => [a, { ...a, name: `${a.name}, as Basic`, auth: basicOf(a.auth) }]);
      const refs: Record<string, string> = { customers: v['customer'] ?? '' };
      for (const resource of CREATION_ORDER) {
        const create = STRIPE_RESOURCES[resource]?.create;
        if (create === undefined || !has('POST', `/v1/${resource}`)) continue;
        for (let i = 0; i < 2; i++) {
          const res = await send(victim.test, 'POST', `/v1/${resource}`, create(refs, serial++));
          expect([resource, res.statusCode, res.body.slice(0, 300)]).toEqual([resource, 200, res.body.slice(0, 300)]);
          refs[resource] = res.json<{ id: string }>().id;
        }
      }
      for (const resource of new Set(stripeOps.map((op) => resourceOf(op.path)))) {
        if (!has('GET', `/v1/${resource}`)) continue;
        const res = await send(victim.test, 'GET', `/v1/${resource}?limit=100`);
        expect([resource, res.statusCode]).toEqual([resource, 200]);
        mine[resource] = res.json<{ data: Array<{ id: string }> }>().data.map((o) => o.id);
      }
    });

    /** The victim's ids of a resource (at least one: the cases below would prove nothing without). */
    const victimIds = (resource: string): string[] => {
      const ids = mine[resource] ?? [];
      expect([resource, ids.length > 0]).toEqual([resource, true]);
      return ids;
    };

    /** Stripe's 404, none of the victim's data, and the answer an id that never existed gets. */
    async function refusedV1(who: Attacker, method: Method, path: string, id: string, form?: string): Promise<void> {
      const tag = `${who.name}: ${method} ${path} (${id})`;
      const res = await send(who.auth, method, path.replace('{id}', id), form);
      expectStripeNotFound(tag, res);
      for (const marker of [...markers(), 'Victim Name', 'victim-crm'])
        expect([tag, marker, res.body.includes(marker)]).toEqual([tag, marker, false]);
      const ghostId = `${id.split('_')[0]}_ghost0000000000000000000`;
      const ghost = await send(who.auth, method, path.replace('{id}', ghostId), form);
      expect([tag, normalisedError(res, [id])]).toEqual([tag, normalisedError(ghost, [ghostId])]);
    }

    /** A list (or search) answer with none of the victim's objects or data. */
    async function listedWithout(who: Attacker, url: string): Promise<void> {
      const res = await send(who.auth, 'GET', url);
      expect([who.name, url, res.statusCode, res.body.slice(0, 200)]).toEqual([who.name, url, 200, res.body.slice(0, 200)]);
      const ids = res.json<{ data: Array<{ id: string }> }>().data.map((o) => o.id);
      const victims = Object.values(mine).flat();
      expect([who.name, url, ids.filter((id) => victims.includes(id))]).toEqual([who.name, url, []]);
      for (const marker of markers()) expect([who.name, url, res.body.includes(marker)]).toEqual([who.name, url, false]);
    }

    it('classifies every /v1 operation, each of a resource the cases know', () => {
      expect(stripeOps.length).toBeGreaterThanOrEqual(5);
      const unknown = stripeOps
        .filter((op) => stripeOpKind(op) === undefined || STRIPE_RESOURCES[resourceOf(op.path)] === undefined)
        .map(opKey);
      expect(unknown).toEqual([]);
      // a create the cases cannot make would leave its resource's object routes untested
      const creates = stripeOps.filter((op) => stripeOpKind(op) === 'create').map((op) => resourceOf(op.path));
      expect(creates.filter((r) => STRIPE_RESOURCES[r]?.create === undefined)).toEqual([]);
    });

    it("an object's routes: the other account's keys and the other mode's key get Stripe's 404, as for an id that never was", async () => {
      const ops = stripeOps.filter((op) => stripeOpKind(op) === 'object');
      expect(ops.length).toBeGreaterThanOrEqual(3);
      const before = await snapshotDatabase(t.db.url);
      for (const op of ops) {
        const resource = resourceOf(op.path);
        const update =
          op.method === 'POST' && op.path === `/v1/${resource}/{id}` ? STRIPE_RESOURCES[resource]?.update : undefined;
        for (const id of victimIds(resource)) {
          for (const who of keyAttackers) {
            await refusedV1(who, op.method as Method, op.path, id, op.method === 'POST' ? '' : undefined);
            if (update !== undefined) await refusedV1(who, 'POST', op.path, id, update);
          }
        }
      }
      const after = await snapshotDatabase(t.db.url);
      for (const table of ['customers', 'payments', 'payment_intents', 'refunds', 'webhook_endpoints'])
        expect([table, after[table]]).toEqual([table, before[table]]);
      // events: none new (the rows themselves change as the background deliveries run)
      expect(after['webhook_events']?.split(':')[0]).toBe(before['webhook_events']?.split(':')[0]);
    });

    it('lists and searches: no victim object, a filter naming one finds nothing, a cursor naming one is refused', async () => {
      const lists = stripeOps.filter((op) => stripeOpKind(op) === 'list');
      expect(lists.length).toBeGreaterThanOrEqual(1);
      for (const op of lists) {
        const resource = resourceOf(op.path);
        const ids = victimIds(resource);
        for (const who of keyAttackers) {
          await listedWithout(who, `${op.path}?limit=100`);
          for (const [param, ref] of Object.entries(STRIPE_RESOURCES[resource]?.listRefs ?? {})) {
            for (const id of mine[ref] ?? []) {
              const url = `${op.path}?${param}=${id}`;
              const res = await send(who.auth, 'GET', url);
              // nothing of the victim's: an empty list, or "no such object" naming the filter
              const answer = res.statusCode === 200 ? res.json<{ data: unknown[] }>().data : stripeErrorOf(res);
              expect([who.name, url, answer]).toEqual([
                who.name,
                url,
                res.statusCode === 200 ? [] : { status: 400, type: 'invalid_request_error', code: 'resource_missing', param },
              ]);
            }
          }
          for (const param of ['starting_after', 'ending_before']) {
            const url = `${op.path}?${param}=${ids[0]}`;
            const res = await send(who.auth, 'GET', url);
            expect([who.name, url, stripeErrorOf(res)]).toEqual([
              who.name,
              url,
              { status: 400, type: 'invalid_request_error', code: 'resource_missing', param },
            ]);
          }
        }
      }
      for (const op of stripeOps.filter((o) => stripeOpKind(o) === 'search')) {
        const query = STRIPE_RESOURCES[resourceOf(op.path)]?.search ?? 'created>0';
        // the victim finds its own, so the attackers' empty answers mean something
        const own = await send(victim.test, 'GET', `${op.path}?query=${encodeURIComponent(query)}`);
        expect([opKey(op), own.statusCode, own.json<{ data: unknown[] }>().data.length > 0]).toEqual([opKey(op), 200, true]);
        for (const who of keyAttackers) await listedWithout(who, `${op.path}?query=${encodeURIComponent(query)}&limit=100`);
      }
    });

    it("creates: another account's object named in the body is refused; what an attacker makes, the victim cannot reach", async () => {
      const creates = stripeOps.filter((op) => stripeOpKind(op) === 'create');
      expect(creates.length).toBeGreaterThanOrEqual(1);
      for (const op of creates) {
        const resource = resourceOf(op.path);
        const spec = STRIPE_RESOURCES[resource];
        const create = spec?.create;
        if (create === undefined) continue; // refused by the classification test
        for (const who of keyAttackers) {
          for (const [param, ref] of Object.entries(spec?.createRefs ?? {})) {
            const id = mine[ref]?.[0];
            if (id === undefined) continue;
            const before = await snapshotDatabase(t.db.url);
            const res = await send(who.auth, 'POST', op.path, create({ [ref]: id }, serial++));
            const e = stripeErrorOf(res) as { status: number; code?: string; param?: string };
            // a live key may be refused before the object is looked up (no live processor): never a success
            expect([who.name, op.path, param, res.statusCode < 300, e.code === 'resource_missing' ? e.param : 'refused']).toEqual(
              [who.name, op.path, param, false, e.code === 'resource_missing' ? param : 'refused'],
            );
            if (who.mode === 'test') expect([who.name, op.path, e.code]).toEqual([who.name, op.path, 'resource_missing']);
            const after = await snapshotDatabase(t.db.url);
            expect([op.path, after['payments'], after['refunds'], after['payment_intents']]).toEqual([
              op.path,
              before['payments'],
              before['refunds'],
              before['payment_intents'],
            ]);
          }
          if (Object.keys(spec?.createRefs ?? {}).length > 0) continue;
          const res = await send(who.auth, 'POST', op.path, create({}, serial++));
          expect([who.name, op.path, res.statusCode]).toEqual([who.name, op.path, 200]);
          const id = res.json<{ id: string }>().id;
          if (has('GET', `/v1/${resource}/{id}`))
            expectStripeNotFound(`victim reads ${who.name}'s ${id}`, await send(victim.test, 'GET', `/v1/${resource}/${id}`));
          const list = await send(victim.test, 'GET', `/v1/${resource}?limit=100`);
          expect(list.json<{ data: Array<{ id: string }> }>().data.map((o) => o.id)).not.toContain(id);
        }
      }
    });

    it("the victim's /v1 objects are as they were, and its keys still reach them (so the 404s above were isolation)", async () => {
      for (const resource of Object.keys(mine)) {
        if (!has('GET', `/v1/${resource}/{id}`)) continue;
        for (const id of victimIds(resource)) {
          for (const auth of [victim.test, basicOf(victim.test)]) {
            const res = await send(auth, 'GET', `/v1/${resource}/${id}`);
            expect([resource, id, res.statusCode]).toEqual([resource, id, 200]);
            expect(res.body).not.toContain('pwned');
          }
        }
      }
    });
  });

  it('test-mode objects and events never reach the live mode of the same account, nor the reverse', async () => {
    const liveCustomer = await newCustomer(t, victim.live, { email: 'live@victim.example' });
    expectNotFound('test key reads a live customer', await call(victim.test, 'GET', `/v2/customers/${liveCustomer}`));
    const testList = await call(victim.test, 'GET', '/v2/customers?limit=100');
    expect(testList.json<{ data: Array<{ id: string }> }>().data.map((c) => c.id)).not.toContain(liveCustomer);
    expectNotFound(
      'test key reads the live endpoint',
      await call(victim.test, 'GET', `/v2/webhook-endpoints/${v['liveEndpoint']}`),
    );
    // the test endpoint got the test payments' events; the live endpoint of the same account got none
    const live = await call(victim.live, 'GET', `/v2/webhook-endpoints/${v['liveEndpoint']}/deliveries`);
    expect(live.json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('an Idempotency-Key is scoped to the account and mode: never a replay or a 422 across accounts or modes', async () => {
    const key = 'same-idempotency-key-0001';
    const bodyOf = { email: 'idem@victim.example' };
    const first = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...victim.test, 'idempotency-key': key },
      payload: bodyOf,
    });
    expect(first.statusCode).toBe(201);
    // same body under another key: executed again (no replay); another body: executed (no 422 "reused")
    const cases: Array<[Record<string, string>, object]> = [
      [other.test, bodyOf],
      [other.live, { email: 'different@body.example' }],
      [victim.live, bodyOf],
    ];
    for (const [auth, payload] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/customers',
        headers: { ...auth, 'idempotency-key': key },
        payload,
      });
      expect([res.statusCode, res.headers['idempotent-replayed']]).toEqual([201, undefined]);
      expect(res.json<{ id: string }>().id).not.toBe(first.json<{ id: string }>().id);
    }
    // the same account and mode does replay, so the checks above can fail
    const replay = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...victim.test, 'idempotency-key': key },
      payload: bodyOf,
    });
    expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.json()).toEqual(first.json());
  });
});
