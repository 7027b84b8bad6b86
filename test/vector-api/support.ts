import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { VectorConfig } from '../../apps/vector-api/src/config';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { mulberry32 } from '../support/random';
import type { TestDatabase } from '../support/database';

export type VectorTestApp = TestApp<VectorConfig>;

export interface Res<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Record<string, unknown>;
}

export interface ErrorRes {
  error: { type: string; code: string; message: string; param?: string; request_id: string; ids?: string[] };
}

export async function startVectorApp(env: Record<string, string> = {}, db?: TestDatabase): Promise<VectorTestApp> {
  return startTestApp(vectorService, { VECTOR_SYNC_INTERVAL_MS: '100', ...env }, db ? { db } : {});
}

/** A fresh API token through the admin API (the test app runs with the development admin key). */
export async function newToken(app: NestFastifyApplication, name = 'test'): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/tokens',
    headers: { authorization: 'Bearer dev-admin-key' },
    payload: { name },
  });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string }>().token;
}

/** A new project through the admin API, with one token of it. */
export async function newProject(app: NestFastifyApplication, name = 'test'): Promise<{ id: string; token: string }> {
  const admin = client(app, 'dev-admin-key');
  const project = await admin<{ id: string }>('POST', '/admin/v1/projects', { name });
  if (project.status !== 201) throw new Error(`project creation failed: ${project.status} ${JSON.stringify(project.body)}`);
  const token = await admin<{ token: string }>('POST', `/admin/v1/projects/${project.body.id}/tokens`, { name: `${name}-token` });
  if (token.status !== 201) throw new Error(`token creation failed: ${token.status} ${JSON.stringify(token.body)}`);
  return { id: project.body.id, token: token.body.token };
}

export type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';
export type Call = <T = unknown>(method: Method, url: string, payload?: unknown) => Promise<Res<T>>;

export function client(app: NestFastifyApplication, token: string): Call {
  return async <T>(method: Method, url: string, payload?: unknown): Promise<Res<T>> => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : undefined) as T, headers: res.headers };
  };
}

/** Deterministic pseudo-random numbers in [-0.5, 0.5) (mulberry32, shifted to centre vectors on 0). */
export function rng(seed: number): () => number {
  const uniform = mulberry32(seed);
  return () => uniform() - 0.5;
}

export function vec(rand: () => number, dim: number): number[] {
  return Array.from({ length: dim }, () => Math.round(rand() * 1e6) / 1e6);
}

/** Polls `check` until it returns true (a bounded number of tries, no timing assertion). */
export async function eventually(check: () => Promise<boolean>, tries = 100, everyMs = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}
