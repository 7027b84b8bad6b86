/**
 * What the cross-cutting suites (isolation, restricted keys, idempotency, fuzz) need to know
 * about Stripe's `/v1` of payments-api beyond /openapi.json, per resource (the path segment
 * after `/v1/`): how to make one (a form body of valid parameters), the id prefix, the
 * parameters of a create or a list that name another object. The suites walk the operations
 * of /openapi.json tagged `stripe` and use this table, so a route added under a known
 * resource is covered without more work; an operation of a resource missing here fails
 * their "every /v1 operation is covered" check, naming it.
 */
import type { LightMyRequestResponse } from 'fastify';

export interface StripeResource {
  /** Stripe's id prefix (`cus`, `pi`, …). */
  readonly prefix: string;
  /** The `KeyResource` of the /v2 routes of the same objects (restricted keys: one permission for both APIs). */
  readonly v2Path: string;
  /** A form body that creates one (`refs`: ids of the same account's objects, by resource), when the API creates them. */
  readonly create?: (refs: Readonly<Record<string, string>>, serial: number) => string;
  /** Create parameters that name another object, and the resource of that object. */
  readonly createRefs?: Readonly<Record<string, string>>;
  /** List filters that name another object, and the resource of that object. */
  readonly listRefs?: Readonly<Record<string, string>>;
  /** A valid `query` of `GET /v1/<resource>/search`, when it has one. */
  readonly search?: string;
  /** An update's form body (POST /v1/<resource>/{id}). */
  readonly update?: string;
}

const form = (fields: Record<string, string | number>): string =>
  Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(String(v))}`)
    .join('&');

export const STRIPE_RESOURCES: Readonly<Record<string, StripeResource>> = {
  customers: {
    prefix: 'cus',
    v2Path: '/v2/customers',
    create: (_refs, n) => form({ email: `stripe${n}@victim.example`, name: 'Victim Name', 'metadata[crm]': 'victim-crm' }),
    search: "email:'victim.person@victim.example'",
    update: form({ name: 'pwned', 'metadata[crm]': '' }),
  },
  payment_intents: {
    prefix: 'pi',
    v2Path: '/v2/payments',
    create: (refs, n) =>
      form({
        amount: 2000 + n,
        currency: 'gbp',
        ...(refs['customers'] === undefined ? {} : { customer: refs['customers'] }),
        payment_method: 'pm_card_visa',
        confirm: 'true',
        capture_method: 'automatic',
        description: 'victim-order intent',
        'metadata[order]': `victim-order ${n}`,
      }),
    createRefs: { customer: 'customers' },
    listRefs: { customer: 'customers' },
    search: "status:'succeeded'",
    update: form({ description: 'pwned', 'metadata[order]': 'pwned' }),
  },
  refunds: {
    prefix: 're',
    v2Path: '/v2/refunds',
    create: (refs) =>
      form({ payment_intent: refs['payment_intents'] ?? 'pi_missing', amount: 100, 'metadata[note]': 'victim-order refund' }),
    createRefs: { payment_intent: 'payment_intents' },
    listRefs: { payment_intent: 'payment_intents' },
    update: form({ 'metadata[note]': '' }),
  },
  webhook_endpoints: {
    prefix: 'we',
    v2Path: '/v2/webhook-endpoints',
    create: (_refs, n) => form({ url: `http://127.0.0.1:9/victim-hooks-${n}`, 'enabled_events[]': '*' }),
    update: form({ url: 'http://127.0.0.1:9/stolen', disabled: 'true' }),
  },
  events: { prefix: 'evt', v2Path: '/v2/events' },
};

/** The resources in the order their objects are made (each may name the ones before it). */
export const CREATION_ORDER = ['customers', 'payment_intents', 'refunds', 'webhook_endpoints'] as const;

/** `/v1/<resource>/…` → resource. */
export const resourceOf = (path: string): string => path.split('/')[2] ?? '';

/** The shape of a /v1 operation, for the generic cases. */
export type StripeOpKind = 'create' | 'list' | 'search' | 'object';

export function stripeOpKind(op: { method: string; path: string }): StripeOpKind | undefined {
  const rest = op.path.split('/').slice(3);
  if (rest.length === 0) return op.method === 'GET' ? 'list' : op.method === 'POST' ? 'create' : undefined;
  if (rest.length === 1 && rest[0] === 'search' && op.method === 'GET') return 'search';
  if (rest[0] === '{id}') return 'object';
  return undefined;
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** The Basic form of a `Bearer sk_…` header (Stripe's `curl -u sk_…:`). */
export function basicOf(auth: Readonly<Record<string, string>>): Record<string, string> {
  const key = (auth['authorization'] ?? '').replace(/^Bearer /, '');
  return { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
}

/** `{error: {type, code, param}}` of a /v1 answer, or its first characters when it is not Stripe's body. */
export function stripeErrorOf(res: LightMyRequestResponse): unknown {
  try {
    const e = res.json<{ error?: { type?: string; code?: string; param?: string } }>().error;
    if (e !== undefined) return { status: res.statusCode, type: e.type, code: e.code, param: e.param };
  } catch {
    // not JSON
  }
  return { status: res.statusCode, body: res.body.slice(0, 200) };
}

/** Sends a /v1 request with a form body (or none). */
export type StripeSend = (
  auth: Readonly<Record<string, string>>,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  form?: string,
  headers?: Readonly<Record<string, string>>,
) => Promise<LightMyRequestResponse>;

/**
 * Makes `count` objects of each resource whose create `/openapi.json` lists (`creatable`), in
 * CREATION_ORDER, each naming the latest of the resources before it: the ids by resource.
 */
export async function makeStripeObjects(
  send: StripeSend,
  auth: Readonly<Record<string, string>>,
  creatable: (resource: string) => boolean,
  refs: Record<string, string> = {},
  count = 1,
): Promise<Record<string, string[]>> {
  const made: Record<string, string[]> = {};
  let serial = 0;
  for (const resource of CREATION_ORDER) {
    const create = STRIPE_RESOURCES[resource]?.create;
    if (create === undefined || !creatable(resource)) continue;
    for (let i = 0; i < count; i++) {
      const res = await send(auth, 'POST', `/v1/${resource}`, create(refs, serial++));
      if (res.statusCode !== 200) throw new Error(`POST /v1/${resource}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      const id = res.json<{ id: string }>().id;
      refs[resource] = id;
      made[resource] = [...(made[resource] ?? []), id];
    }
  }
  return made;
}
