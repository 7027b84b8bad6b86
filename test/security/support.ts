/**
 * Shared helpers of the security specs: route enumeration (OpenAPI and Nest's own route
 * table), path filling, database snapshots for "no side effect" checks, and the secret
 * scanner used on captured log lines.
 */
import { Client } from 'pg';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  readonly method: HttpMethod;
  /** OpenAPI template, e.g. `/api/v1/offers/{offer_id}/indications/{id}`. */
  readonly path: string;
  /** Names of the path parameters, in order. */
  readonly params: readonly string[];
  /** Security scheme names of the operation (`admin`, `partner`, …). */
  readonly security: readonly string[];
  /** Its OpenAPI tags (`stripe`: Stripe's /v1 of payments-api, docs/stripe.md). */
  readonly tags: readonly string[];
}

export const opKey = (op: { method: string; path: string }): string => `${op.method.toUpperCase()} ${op.path}`;

/** Every operation of the service's `/openapi.json`. */
export async function openApiOperations(app: NestFastifyApplication): Promise<Operation[]> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
  const doc = res.json<{
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; tags?: string[] }>>;
  }>();
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase() as HttpMethod,
        path,
        params: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ''),
        security: (op.security ?? []).flatMap((s) => Object.keys(s)),
        tags: op.tags ?? [],
      });
    }
  }
  return ops;
}

/**
 * The routes Nest actually mapped (from its "Mapped {/path, METHOD} route" boot log lines),
 * as OpenAPI-style templates: catches a route hidden from the OpenAPI document.
 */
export function mappedRoutes(logs: ReadonlyArray<Record<string, unknown>>): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  for (const line of logs) {
    const msg = line['msg'];
    const m = typeof msg === 'string' ? /^Mapped \{(\/[^,]*), (\w+)\} route$/.exec(msg) : null;
    if (m?.[1] && m[2]) routes.push({ method: m[2], path: m[1].replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
  }
  return routes;
}

/** `path` with each `{param}` replaced by `values[param]` (URL-encoded), or by `fallback`. */
export function fillPath(path: string, values: Readonly<Record<string, string>>, fallback = 'missing_0000000000000000'): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? fallback));
}

/** md5 of every table's full content: any INSERT, UPDATE or DELETE changes it. */
export async function snapshotDatabase(url: string): Promise<Record<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
    );
    const out: Record<string, string> = {};
    for (const { name } of tables.rows) {
      const r = await client.query<{ n: string; h: string | null }>(
        `SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM "${name}" t`,
      );
      out[name] = `${r.rows[0]?.n}:${r.rows[0]?.h ?? '-'}`;
    }
    return out;
  } finally {
    await client.end();
  }
}

export { queryAt as sql } from '../support/database';

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string; [k: string]: unknown };
}

/** Whether an operation is one of Stripe's `/v1` (payments-api, tag `stripe`): errors in Stripe's body, keys only. */
export const isStripeOperation = (op: { readonly tags: readonly string[] }): boolean => op.tags.includes('stripe');

/** Stripe's error body (`{error: {type, message, code?, param?, …}}`, no request_id) on payments-api's /v1. */
export interface StripeErrorBody {
  error: { type: string; message: string; code?: string; param?: string; decline_code?: string; [k: string]: unknown };
}

/** Asserts Stripe's 404 "No such …" (`resource_missing`, type invalid_request_error): a failure names the case. */
export function expectStripeNotFound(label: string, res: LightMyRequestResponse): void {
  let got: unknown = res.body.slice(0, 300);
  if (res.statusCode === 404) {
    const e = res.json<Partial<StripeErrorBody>>().error;
    got = { type: e?.type, code: e?.code, stripe: e !== undefined && !('request_id' in e) };
  }
  expect({ case: label, status: res.statusCode, got }).toEqual({
    case: label,
    status: 404,
    got: { type: 'invalid_request_error', code: 'resource_missing', stripe: true },
  });
}

/** Asserts the platform's 404 `resource_missing`; a failure names the case and shows the answer. */
export function expectNotFound(label: string, res: LightMyRequestResponse): void {
  const code = res.statusCode === 404 ? res.json<ErrorBody>().error?.code : res.body.slice(0, 300);
  expect({ case: label, status: res.statusCode, code }).toEqual({ case: label, status: 404, code: 'resource_missing' });
}

/** Qdrant's error body, on the Qdrant-compatible routes of vector-api (docs/qdrant.md). */
export interface QdrantErrorBody {
  status: { error: string };
  time: number;
}

/** Whether a route answers its errors in Qdrant's body (vector-api's `/` and `/collections…`). */
export const isQdrantRoute = (path: string): boolean => path === '/' || /^\/collections(\/|$|\?)/.test(path);

/** Asserts a 404 in Qdrant's body (`{status: {error: "Not found: …"}}`), the Qdrant routes' "not found". */
export function expectQdrantNotFound(label: string, res: LightMyRequestResponse): void {
  const error =
    res.statusCode === 404 ? res.json<Partial<QdrantErrorBody>>().status?.error?.slice(0, 10) : res.body.slice(0, 300);
  expect({ case: label, status: res.statusCode, error }).toEqual({ case: label, status: 404, error: 'Not found:' });
}

/** The message of an error body (the platform's or Qdrant's) with the ids it echoes replaced, to compare two "not found" answers. */
export function normalisedError(res: LightMyRequestResponse, ids: readonly string[]): unknown {
  const replace = (text: string): string => ids.reduce((m, id) => m.split(id).join('<id>'), text);
  const json = res.json<Partial<ErrorBody> & Partial<QdrantErrorBody>>();
  if (json.error === undefined && typeof json.status?.error === 'string') {
    return { status: res.statusCode, qdrant: replace(json.status.error), keys: Object.keys(json).sort() };
  }
  const body = json as ErrorBody;
  return {
    status: res.statusCode,
    type: body.error.type,
    code: body.error.code,
    param: body.error.param,
    message: replace(body.error.message),
  };
}

/** Secret shapes that must never appear in a log line, whatever their value (task brief). */
export const SECRET_SHAPES: readonly RegExp[] = [
  /[sr]k_(test|live)_[A-Za-z0-9]/,
  /whsec_/,
  /eyJ[A-Za-z0-9_-]{10,}\./,
  /Basic [A-Za-z0-9+/=]{8,}/,
  /\bvt_[A-Za-z0-9]{8,}/,
  /\bcs_[A-Za-z0-9]{8,}/,
  /\bcl_[A-Za-z0-9]{8,}/,
];

const PREFIXES = /^(sk_test_|sk_live_|rk_test_|rk_live_|whsec_|vt_|cs_|cl_|Bearer |Basic )/;

/**
 * The strings that count as a leak of `secret`: itself, the part after its prefix, and
 * every 12-character window of it (so a truncated or re-encoded copy is caught too).
 */
export function leakNeedles(secret: string): string[] {
  const body = secret.replace(PREFIXES, '');
  const needles = new Set([secret, body]);
  for (let i = 0; i + 12 <= body.length; i += 3) needles.add(body.slice(i, i + 12));
  return [...needles].filter((n) => n.length >= 8);
}

export interface Leak {
  readonly line: number;
  readonly what: string;
  readonly excerpt: string;
}

/** Every place in `lines` where a secret (or a piece of one) or a secret shape appears. */
export function findLeaks(lines: readonly string[], secrets: ReadonlyArray<readonly [string, string]>): Leak[] {
  const leaks: Leak[] = [];
  const needles = secrets.flatMap(([label, value]) => leakNeedles(value).map((n) => [label, n] as const));
  lines.forEach((line, i) => {
    for (const [label, needle] of needles) {
      const at = line.indexOf(needle);
      if (at >= 0)
        leaks.push({ line: i, what: `${label} (${needle.slice(0, 6)}…)`, excerpt: line.slice(Math.max(0, at - 80), at + 80) });
    }
    for (const shape of SECRET_SHAPES) {
      const m = shape.exec(line);
      if (m) leaks.push({ line: i, what: `shape ${shape.source}`, excerpt: line.slice(Math.max(0, m.index - 80), m.index + 80) });
    }
  });
  return leaks;
}

export { waitFor } from '../support/wait';
