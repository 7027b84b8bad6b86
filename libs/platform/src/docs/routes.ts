import type { Type } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { ROUTE_ERROR_RENDERER, type RouteErrorRenderer } from '../errors/route-error-renderer';
import { type ApiErrorBodyRef, type ApiErrorRef, declaredErrorBody, declaredErrors } from './api-errors';

/** What the OpenAPI document cannot say about one operation, read from its controller. */
export interface DocumentedRoute {
  /** As @nestjs/swagger names it: `<controller class>_<method>`. */
  readonly operationId: string;
  readonly controller: Type;
  readonly methodName: string;
  /** Codes declared with @ApiErrors on the route and its controller. */
  readonly errors: readonly ApiErrorRef[];
  /** The route renders its errors in another standard's body (RenderErrorsWith: POST /oauth/token). */
  readonly ownErrorBody: boolean;
  /** That renderer, when it has one: the status it answers a code with is the documented one. */
  readonly renderer?: RouteErrorRenderer | undefined;
  /** The body it renders every error in, 5xx too, when it declares one (ApiErrorBody). */
  readonly errorBody?: ApiErrorBodyRef | undefined;
  /** The class its body is validated as (`@Body()`'s type, or `@ApiBody({ type })` for a body read by a custom pipe). */
  readonly bodyType: Type | undefined;
  /** The class its query string is validated as (`@Query()`'s type). */
  readonly queryType: Type | undefined;
}

type ArgMetadata = Record<string, { index: number; data?: unknown }>;

const isClass = (value: unknown): value is Type =>
  typeof value === 'function' && value !== Object && value !== String && value !== Number && value !== Boolean && value !== Array;

function argType(controller: Type, methodName: string, paramtype: RouteParamtypes): Type | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) as ArgMetadata | undefined) ?? {};
  const types =
    (Reflect.getMetadata('design:paramtypes', controller.prototype as object, methodName) as unknown[] | undefined) ?? [];
  for (const [key, arg] of Object.entries(args)) {
    if (key !== `${paramtype}:${arg.index}` || arg.data !== undefined) continue;
    const type = types[arg.index];
    if (isClass(type)) return type;
  }
  return undefined;
}

function apiBodyType(handler: object): Type | undefined {
  const parameters = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) as Array<{ in?: string; type?: unknown }>) ?? [];
  const body = parameters.find((p) => p.in === 'body');
  return isClass(body?.type) ? body.type : undefined;
}

/** Every route of the app's controllers, by operation id. */
export function documentedRoutes(app: INestApplication): Map<string, DocumentedRoute> {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const routes = new Map<string, DocumentedRoute>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Type | undefined;
    if (!controller || typeof controller !== 'function') continue;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[methodName];
      if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
      const routeConfig = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as Record<string, unknown> | undefined;
      const renderer = routeConfig?.[ROUTE_ERROR_RENDERER];
      routes.set(`${controller.name}_${methodName}`, {
        operationId: `${controller.name}_${methodName}`,
        controller,
        methodName,
        errors: declaredErrors(controller, handler),
        ownErrorBody: typeof renderer === 'function',
        renderer: typeof renderer === 'function' ? (renderer as RouteErrorRenderer) : undefined,
        errorBody: declaredErrorBody(controller, handler),
        bodyType: apiBodyType(handler) ?? argType(controller, methodName, RouteParamtypes.BODY),
        queryType: argType(controller, methodName, RouteParamtypes.QUERY),
      });
    }
  }
  return routes;
}
