/**
 * A code a route can answer with: the code alone (its status is the catalogue's), or with
 * the status the thrower overrides it with (DomainError's `status` option, e.g.
 * `resource_missing` as 400 for an object named in the body) and a note on when.
 */
export type ApiErrorRef = string | { readonly code: string; readonly status?: number; readonly when?: string };

const API_ERRORS = 'platform:api-errors';

/**
 * Documents the error codes a route (or every route of a controller) can answer with,
 * besides those the platform adds itself for what the route has (credentials: 401, 429;
 * a JSON body: 400, 413, 415; query or path parameters: 400, 404; an Idempotency-Key:
 * 409, 422; everywhere: 500, 503). Each code's status comes from the error catalogue when
 * the document is built, so an app's own codes (registered at boot) work, and a code no
 * catalogue has stops the boot. See docs/architecture.md, "Adding an endpoint".
 *
 *     @ApiErrors('offer_not_live', { code: 'resource_missing', when: 'no such offer in your agreement' })
 */
export function ApiErrors(...errors: ApiErrorRef[]): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor?.value ?? target) as object;
    const existing = (Reflect.getOwnMetadata(API_ERRORS, holder) as ApiErrorRef[] | undefined) ?? [];
    Reflect.defineMetadata(API_ERRORS, [...existing, ...errors], holder);
  };
}

/** The errors declared with ApiErrors on a handler and on its controller class and the classes it extends. */
export function declaredErrors(controller: abstract new (...args: never[]) => unknown, handler: object): ApiErrorRef[] {
  const refs: ApiErrorRef[] = [];
  for (let c: unknown = controller; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    refs.push(...((Reflect.getOwnMetadata(API_ERRORS, c) as ApiErrorRef[] | undefined) ?? []));
  }
  refs.push(...((Reflect.getOwnMetadata(API_ERRORS, handler) as ApiErrorRef[] | undefined) ?? []));
  return refs;
}

/** The body a route renders all its errors in, when it is not the contract's (see ApiErrorBody). */
export interface ApiErrorBodyRef {
  /** Its component schema's name in the document. */
  readonly name: string;
  /** A JSON Schema object (kept as plain data: libs/platform/src/docs builds no types from it). */
  readonly schema: Readonly<Record<string, unknown>>;
}

const API_ERROR_BODY = 'platform:api-error-body';

/**
 * For a route (or every route of a controller) whose renderer (RenderErrorsWith) re-renders
 * every error, 4xx and 5xx, in a body another product fixes: the OpenAPI document gives each
 * of its error statuses this body (component `name`) instead of the contract's, still with
 * the catalogue's codes of that status (the renderer keeps the code in its message). The
 * codes are found as for any route (what it has, plus @ApiErrors).
 */
export function ApiErrorBody(body: ApiErrorBodyRef): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    Reflect.defineMetadata(API_ERROR_BODY, body, (descriptor?.value ?? target) as object);
  };
}

/** The error body declared with ApiErrorBody on a handler, else on its controller class (or the classes it extends). */
export function declaredErrorBody(
  controller: abstract new (...args: never[]) => unknown,
  handler: object,
): ApiErrorBodyRef | undefined {
  return (
    (Reflect.getOwnMetadata(API_ERROR_BODY, handler) as ApiErrorBodyRef | undefined) ??
    (Reflect.getMetadata(API_ERROR_BODY, controller) as ApiErrorBodyRef | undefined)
  );
}
