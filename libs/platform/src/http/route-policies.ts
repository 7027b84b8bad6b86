import { applyDecorators, type CanActivate, type ExecutionContext, RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiConsumes } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { PlatformConfig } from '../config/platform-config';
import { DomainError } from '../errors/domain-error';

/**
 * Per-route policies applied by Fastify before the body is read, declared with Nest
 * decorators on controllers:
 *
 * - guards extending `BeforeBodyGuard` (the admin key, `@Authenticated(kind)`) run in the
 *   route's `preParsing` hook: a request without valid credentials is refused before a
 *   byte of its body is read or parsed, whatever its size. The same guard, when Nest runs
 *   it again in its own pipeline, sees that it already passed and returns at once.
 * - `@BodyLimit(...)` gives one route a body limit other than BODY_LIMIT_BYTES.
 * - every route takes its body as `application/json` (any parameters: `; charset=utf-8`),
 *   the media type the platform's JSON parser reads: any other one, or a body without a
 *   Content-Type, is 415 `unsupported_media_type` before the body is read (after the
 *   guards: without credentials it is 401 whatever the body). A route marked `@FormBody()`
 *   (the OAuth token endpoint, RFC 6749) checks its content types itself.
 * - every route refuses query parameters it does not declare (400 `parameter_unknown` naming
 *   the first), before the body is read: a route whose handler takes the whole query
 *   (`@Query() dto`) leaves it to the validation pipe (the DTO's fields, `forbidNonWhitelisted`),
 *   one that takes named ones (`@Query('name')`) accepts those names, one that takes none
 *   accepts none. `@AnyQuery(reason)` opts a route out (the console's pages and files). Routes
 *   Nest does not register (Swagger UI at /docs, /openapi.json) are not checked.
 *
 * Nest keeps route metadata on controllers; Fastify knows routes by method and URL. At
 * startup `installRoutePolicies` reads every controller route's metadata once, keyed by
 * method and URL as Nest registers them, and an `onRoute` hook puts the policies on the
 * Fastify routes as Nest registers them. A policy that finds no route stops the boot.
 */

const BODY_LIMIT = 'platform:body-limit';

/** A body limit in bytes, or a function of the app's config that gives it. */
export type BodyLimitSetting<C extends PlatformConfig = PlatformConfig> = number | ((config: C) => number);

/**
 * The largest body this route accepts (413 `body_too_large` past it) instead of the
 * service's BODY_LIMIT_BYTES: only for routes where large bodies are legitimate (batch
 * inserts of embeddings). Checked against Content-Length before reading, and while reading.
 */
export function BodyLimit<C extends PlatformConfig>(limit: BodyLimitSetting<C>): MethodDecorator {
  return SetMetadata(BODY_LIMIT, limit);
}

const ANY_QUERY = 'platform:any-query';

/**
 * The route accepts any query string and ignores what it does not use: only for routes that
 * are not API (the console's pages, whose query string is the single-page app's own state,
 * and its static files). `reason` says why, for the reader. Every other route refuses the
 * query parameters it does not declare.
 */
export function AnyQuery(reason: string): MethodDecorator {
  return SetMetadata(ANY_QUERY, reason);
}

const FORM_BODY = 'platform:form-body';

/**
 * The route takes an `application/x-www-form-urlencoded` body (and documents it so): the
 * platform's JSON-only check of the Content-Type is off there, and the route checks the
 * content type itself (RFC 6749 token endpoint: JSON is its own `invalid_request`).
 */
export function FormBody(): MethodDecorator {
  return applyDecorators(SetMetadata(FORM_BODY, true), ApiConsumes('application/x-www-form-urlencoded'));
}

const RAW_JSON_BODY = 'platform:raw-json-body';

/**
 * The route takes its JSON body as the raw bytes the client sent (a Buffer, or undefined
 * without a body) and parses it itself, e.g. off the event loop: the platform's parser does
 * not run, so the route must refuse what it refuses (parseJsonBody's errors). Everything
 * before the body (guards, the Content-Type check, the body limit) applies as on any route.
 */
export function RawJsonBody(): MethodDecorator {
  return SetMetadata(RAW_JSON_BODY, true);
}

/** Whether `request`'s route takes its body raw (`@RawJsonBody()`): read by the platform's JSON parser. */
export function wantsRawJsonBody(request: { readonly routeOptions: { readonly config: unknown } }): boolean {
  return (request.routeOptions.config as { rawJsonBody?: unknown } | undefined)?.rawJsonBody === true;
}

/** The media type of a Content-Type header: lower case, without parameters. */
const mediaTypeOf = (header: string): string => (header.split(';')[0] ?? '').trim().toLowerCase();

/** A media type worth repeating in a message (`type/subtype` of token characters), not arbitrary header text. */
const NAMEABLE_TYPE = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/;

/** 415 for a body of another media type than JSON, naming it when it is a plain `type/subtype`. */
export function unsupportedMediaType(contentType: string | undefined): DomainError {
  const fix = 'send the body as JSON with Content-Type: application/json.';
  if (contentType === undefined) {
    return new DomainError('unsupported_media_type', `The request has a body but no Content-Type: ${fix}`);
  }
  const type = mediaTypeOf(contentType);
  const named = NAMEABLE_TYPE.test(type) ? `Content-Type ${type}` : 'This Content-Type';
  return new DomainError('unsupported_media_type', `${named} is not supported: ${fix}`);
}

/** Any controller method (Nest's route handlers). */
type Handler = (...args: never[]) => unknown;

const passedGuards = new WeakMap<object, Set<object>>();

/**
 * A guard that can decide from the request line and headers alone, so the platform runs it
 * before the body is read. `check` throws a DomainError (401, 429...) or returns. The
 * principal or anything else it derives goes on the request, where the route reads it.
 */
export abstract class BeforeBodyGuard implements CanActivate {
  protected abstract check(context: ExecutionContext): Promise<void> | void;

  /** Nest's pipeline: a no-op when the platform already ran this guard for the request. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (passedGuards.get(request)?.has(this.constructor)) return true;
    await this.checkBeforeBody(context);
    return true;
  }

  /** Runs the check and remembers that it passed for this request. */
  async checkBeforeBody(context: ExecutionContext): Promise<void> {
    await this.check(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const passed = passedGuards.get(request) ?? new Set<object>();
    passed.add(this.constructor);
    passedGuards.set(request, passed);
  }
}

/**
 * The query parameters a route accepts: any (`@AnyQuery`), those of the DTO its handler
 * validates the whole query as (the pipe refuses the rest), or exactly these names.
 */
type QueryPolicy =
  { readonly kind: 'any' } | { readonly kind: 'dto' } | { readonly kind: 'names'; readonly names: ReadonlySet<string> };

interface RoutePolicy {
  readonly controller: Type;
  readonly handler: Handler;
  readonly guards: readonly BeforeBodyGuard[];
  readonly bodyLimit: number | undefined;
  readonly formBody: boolean;
  readonly rawJsonBody: boolean;
  readonly query: QueryPolicy;
  readonly name: string;
}

/** Whether a policy must find its Fastify route (the query rule alone is harmless where Nest maps no route). */
const mustApply = (policy: RoutePolicy): boolean =>
  policy.guards.length > 0 || policy.bodyLimit !== undefined || policy.formBody || policy.rawJsonBody;

type ArgMetadata = Record<string, { index: number; data?: unknown }>;

/** What the handler declares about its query string (see QueryPolicy). */
function queryPolicyOf(controller: Type, methodName: string, handler: Handler): QueryPolicy {
  if (Reflect.getMetadata(ANY_QUERY, handler) !== undefined) return { kind: 'any' };
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) as ArgMetadata | undefined) ?? {};
  const names = new Set<string>();
  for (const [key, arg] of Object.entries(args)) {
    if (!key.startsWith(`${RouteParamtypes.QUERY}:`)) continue;
    if (typeof arg.data !== 'string') return { kind: 'dto' };
    names.add(arg.data);
  }
  return { kind: 'names', names };
}

type Metadata = string | string[] | undefined;
const asArray = (value: Metadata): string[] => (value === undefined ? [''] : Array.isArray(value) ? value : [value]);
const stripEndSlash = (path: string): string => (path.endsWith('/') ? path.slice(0, -1) : path);
const addLeadingSlash = (path: string): string => (path === '' || path.startsWith('/') ? path : `/${path}`);

/** The URL Nest registers for a controller path and a method path (no global prefix, no URI versioning). */
export function routeUrl(controllerPath: string, methodPath: string): string {
  let path = '';
  for (const fragment of [controllerPath, methodPath]) if (fragment) path = stripEndSlash(path) + addLeadingSlash(fragment);
  path = addLeadingSlash(path || '/');
  return path === '/' ? path : stripEndSlash(path);
}

/** Whether a request still has a body on the wire (then a refusal closes the connection instead of draining it). */
function bodyPending(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

function guardsOf(target: object): unknown[] {
  return (Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? [];
}

function resolveLimit(setting: BodyLimitSetting<never> | undefined, config: PlatformConfig, name: string): number | undefined {
  if (setting === undefined) return undefined;
  const limit = typeof setting === 'function' ? (setting as (c: PlatformConfig) => number)(config) : setting;
  if (!Number.isInteger(limit) || limit < 1024)
    throw new Error(`@BodyLimit on ${name}: ${limit} is not an integer of at least 1024 bytes`);
  return limit;
}

function guardInstance(app: NestFastifyApplication, guard: Type<BeforeBodyGuard>, route: string): BeforeBodyGuard {
  try {
    return app.get(guard, { strict: false });
  } catch (err) {
    throw new Error(`${route}: ${guard.name} runs before the body, so a module must provide it`, { cause: err });
  }
}

/** Every controller route with a before-body guard or its own body limit, by `METHOD url`. */
function collectPolicies(app: NestFastifyApplication, config: PlatformConfig): Map<string, RoutePolicy> {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const policies = new Map<string, RoutePolicy>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Type | undefined;
    if (!controller || typeof controller !== 'function') continue;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      if (typeof prototype[methodName] !== 'function') continue;
      const handler = prototype[methodName] as Handler;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      const name = `${controller.name}.${methodName}`;
      const guards: BeforeBodyGuard[] = [];
      for (const guard of [...guardsOf(controller), ...guardsOf(handler)]) {
        const instance =
          guard instanceof BeforeBodyGuard
            ? guard
            : typeof guard === 'function' && guard.prototype instanceof BeforeBodyGuard
              ? guardInstance(app, guard as Type<BeforeBodyGuard>, name)
              : undefined;
        if (instance && !guards.includes(instance)) guards.push(instance);
      }
      const bodyLimit = resolveLimit(
        (Reflect.getMetadata(BODY_LIMIT, handler) ?? Reflect.getMetadata(BODY_LIMIT, controller)) as BodyLimitSetting<never>,
        config,
        name,
      );
      const formBody = Reflect.getMetadata(FORM_BODY, handler) === true;
      const rawJsonBody = Reflect.getMetadata(RAW_JSON_BODY, handler) === true;
      const query = queryPolicyOf(controller, methodName, handler);
      const policy: RoutePolicy = { controller, handler, guards, bodyLimit, formBody, rawJsonBody, query, name };
      for (const controllerPath of asArray(Reflect.getMetadata(PATH_METADATA, controller) as Metadata)) {
        for (const methodPath of asArray(Reflect.getMetadata(PATH_METADATA, handler) as Metadata)) {
          policies.set(`${RequestMethod[method]} ${routeUrl(controllerPath, methodPath)}`, policy);
        }
      }
    }
  }
  return policies;
}

function beforeBodyHook(policy: RoutePolicy) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const context = new ExecutionContextHost([request, reply, undefined], policy.controller, policy.handler);
    try {
      for (const guard of policy.guards) await guard.checkBeforeBody(context);
    } catch (err) {
      // The body was not read: close the connection after the answer rather than drain it.
      if (bodyPending(request)) void reply.header('Connection', 'close');
      throw err;
    }
    return payload;
  };
}

/** Refuses, before the body is read, a query parameter the route does not declare. */
function declaredQueryOnly(names: ReadonlySet<string>) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const query = request.query;
    const unknown = typeof query === 'object' && query !== null ? Object.keys(query).find((name) => !names.has(name)) : undefined;
    if (unknown === undefined) return Promise.resolve(payload);
    if (bodyPending(request)) void reply.header('Connection', 'close');
    const declared = names.size === 0 ? 'This route takes no query parameters.' : `It takes: ${[...names].join(', ')}.`;
    return Promise.reject(
      new DomainError('parameter_unknown', `Received unknown parameter: ${unknown}. ${declared}`, { param: unknown }),
    );
  };
}

/**
 * Refuses, before the body is read, a body that is not `application/json`: where Fastify
 * would read one (not GET or HEAD; a Content-Type, or a Content-Length or
 * Transfer-Encoding saying a body follows), its media type must be JSON's.
 */
function jsonOnly(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const contentType = request.headers['content-type'];
  const json =
    request.method === 'GET' ||
    request.method === 'HEAD' ||
    (contentType === undefined ? !bodyPending(request) : mediaTypeOf(contentType) === 'application/json');
  if (json) return Promise.resolve(payload);
  // the body was not read: close the connection after the answer rather than drain it
  if (bodyPending(request)) void reply.header('Connection', 'close');
  return Promise.reject(unsupportedMediaType(contentType));
}

/**
 * Reads the route policies from the controllers and applies them to the Fastify routes Nest
 * registers in `app.init()`. Call between NestFactory.create and app.init; call the
 * returned function after init: it throws if a policy matched no route.
 */
export function installRoutePolicies(app: NestFastifyApplication, config: PlatformConfig): () => void {
  const policies = collectPolicies(app, config);
  const applied = new Set<string>();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let policy: RoutePolicy | undefined;
    for (const method of methods) {
      // Fastify adds HEAD for every GET route (same policy); @All routes are registered for every method.
      const key = [`${method} ${route.url}`, `ALL ${route.url}`, ...(method === 'HEAD' ? [`GET ${route.url}`] : [])].find((k) =>
        policies.has(k),
      );
      policy = key === undefined ? undefined : policies.get(key);
      if (!policy || key === undefined) continue;
      applied.add(key);
      break;
    }
    if (policy?.bodyLimit !== undefined) route.bodyLimit = policy.bodyLimit;
    if (policy?.rawJsonBody) route.config = { ...route.config, rawJsonBody: true };
    const existing =
      route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [
      ...(policy && policy.guards.length > 0 ? [beforeBodyHook(policy)] : []),
      ...(policy?.query.kind === 'names' ? [declaredQueryOnly(policy.query.names)] : []),
      ...(policy?.formBody ? [] : [jsonOnly]),
      ...existing,
    ];
  });
  return () => {
    const missing = [...policies.entries()].filter(([key, policy]) => mustApply(policy) && !applied.has(key)).map(([key]) => key);
    if (missing.length > 0) {
      throw new Error(`route policies matched no Fastify route (a global prefix or URI versioning?): ${missing.join(', ')}`);
    }
  };
}
