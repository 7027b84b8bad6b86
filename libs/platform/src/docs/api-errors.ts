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
