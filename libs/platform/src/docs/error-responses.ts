import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { errorSpec, type ErrorType } from '../errors/error-catalog';
import type { ApiErrorRef } from './api-errors';
import type { DocumentedRoute } from './routes';

/**
 * Every operation's error responses: each status it can answer with, the contract's error
 * body, and the codes behind that status (from the error catalogue, so a status is never
 * written twice). The codes are what the route declares with @ApiErrors plus what the
 * platform knows the route can answer from what it has (docs/errors.md):
 *
 * - every operation: 500 `internal_error`, 503 `service_unavailable` (a dependency down, or
 *   the instance shutting down);
 * - credentials (`security`): 401 `authentication_required` and the scheme's own codes
 *   (OpenApiOptions.credentialErrors), 429 `rate_limit_exceeded`;
 * - a JSON body: 400 for its shape, 413 `body_too_large`, 415 `unsupported_media_type`;
 * - query parameters: 400; path parameters: 400 (a malformed encoding), 404 `resource_missing`;
 * - a POST with `Idempotency-Key`: 400 for the key, 409 `idempotency_key_in_use`, 422
 *   `idempotency_key_reused`.
 *
 * A route that renders its errors in another standard's body (RenderErrorsWith) documents
 * its 4xx itself; only its 5xx, which stay the platform's, are added. A route that renders
 * all its errors in another body and declares it (ApiErrorBody) gets every status as above,
 * with that body, each code under the status its renderer answers it with.
 */

export const ERROR_BODY_SCHEMA = 'ErrorBody';

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'idempotency_error',
  'card_error',
  'api_error',
] as const satisfies readonly ErrorType[];
// every ErrorType is listed (a type added to the union and not here fails to compile)
const allTypesListed: Exclude<ErrorType, (typeof ERROR_TYPES)[number]> extends never ? true : never = true;
void allTypesListed;

/** The contract's error body (docs/errors.md), as a component schema. */
export function errorBodySchemas(): Record<string, SchemaObject> {
  return {
    [ERROR_BODY_SCHEMA]: {
      type: 'object',
      description: 'Every error of every route but POST /oauth/token (docs/errors.md).',
      required: ['error'],
      properties: { error: { $ref: '#/components/schemas/ErrorDetails' } },
      additionalProperties: false,
    },
    ErrorDetails: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', enum: [...ERROR_TYPES], description: 'Who must act' },
        code: {
          type: 'string',
          pattern: '^[a-z][a-z0-9_]*$',
          description: 'Stable; branch on it, not on the message. The codes of each response are listed with it.',
          example: 'parameter_invalid',
        },
        message: { type: 'string', description: 'For people; may change' },
        param: {
          type: 'string',
          description: 'The offending field, when there is one; nested fields with dots and indexes (rows[3].embedding)',
        },
        request_id: {
          type: 'string',
          pattern: '^req_[0-9a-f]{24}$',
          description: 'The Request-Id response header',
          example: 'req_5490ca836ff3fda17d9de354',
        },
      },
      additionalProperties: { description: 'Some codes add fields (docs/errors.md)' },
    },
  };
}

const BODY_CODES = [
  { code: 'parameter_invalid', when: 'a body field breaks its schema' },
  'parameter_missing',
  'parameter_unknown',
  'parameter_duplicate',
  'body_invalid',
  'invalid_json',
  'body_too_large',
  'unsupported_media_type',
];
const QUERY_CODES = [{ code: 'parameter_invalid', when: 'a query parameter breaks its schema' }, 'parameter_unknown'];
const PATH_CODES = [
  { code: 'parameter_invalid', when: 'a path parameter with a malformed percent-encoding' },
  'resource_missing',
];
const IDEMPOTENCY_CODES = [
  { code: 'parameter_invalid', when: 'an Idempotency-Key over 255 characters' },
  'idempotency_key_in_use',
  'idempotency_key_reused',
];
const SERVER_CODES = ['internal_error', 'service_unavailable'];

/** Response headers that come with a status (docs/errors.md). */
const HEADERS: Record<number, Record<string, { description: string; schema: SchemaObject }>> = {
  401: { 'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750)', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } } },
  503: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } } },
};

interface Entry {
  readonly code: string;
  /** When the code comes, for a code that several causes raise (in the order declared). */
  readonly when: string[];
}

const isReference = (value: unknown): value is ReferenceObject => typeof value === 'object' && value !== null && '$ref' in value;

function resolveSchema(document: OpenAPIObject, schema: SchemaObject | ReferenceObject | undefined): SchemaObject | undefined {
  if (!isReference(schema)) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return document.components?.schemas?.[name] as SchemaObject | undefined;
}

/** The codes the platform knows an operation can answer with, from what it has. */
function implicitErrors(
  document: OpenAPIObject,
  method: string,
  operation: OperationObject,
  credentialErrors: Readonly<Record<string, readonly string[]>>,
): ApiErrorRef[] {
  const refs: ApiErrorRef[] = [...SERVER_CODES];
  for (const requirement of operation.security ?? []) {
    for (const scheme of Object.keys(requirement)) {
      const own = credentialErrors[scheme];
      if (own === undefined && document.components?.securitySchemes?.[scheme] !== undefined) {
        throw new Error(`OpenAPI: security scheme ${scheme} has no entry in the service's openApi.credentialErrors`);
      }
      refs.push('authentication_required', ...(own ?? ['invalid_api_key', 'invalid_token']), 'rate_limit_exceeded');
    }
  }
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const json = operation.requestBody && !isReference(operation.requestBody) && operation.requestBody.content['application/json'];
  if (json) {
    refs.push(...BODY_CODES);
    const schema = resolveSchema(document, json.schema);
    if (!schema?.required?.length) refs.splice(refs.indexOf('parameter_missing'), 1);
  }
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length > 0) refs.push(...QUERY_CODES, ...(query.some((p) => p.required) ? ['parameter_missing'] : []));
  if (parameters.some((p) => p.in === 'path')) refs.push(...PATH_CODES);
  if (method === 'post' && parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
    refs.push(...IDEMPOTENCY_CODES);
  }
  return refs;
}

/**
 * The status a route answers a code with: the one its renderer gives it (a route that renders
 * every error in another standard's body may answer a code with another status, e.g. Stripe's
 * 400 for a reused Idempotency-Key), else the catalogue's (or the thrower's override).
 */
function renderedStatus(route: DocumentedRoute | undefined, code: string, status: number): number {
  if (route?.renderer === undefined || route.errorBody === undefined) return status;
  return route.renderer({ status, code, message: code })?.status ?? status;
}

/** The codes of each status, from the catalogue; a code nobody registered stops the boot. */
function byStatus(refs: readonly ApiErrorRef[], where: string, route?: DocumentedRoute): Map<number, Entry[]> {
  const statuses = new Map<number, Entry[]>();
  for (const ref of refs) {
    const { code, status: override, when } = typeof ref === 'string' ? { code: ref, status: undefined, when: undefined } : ref;
    const spec = errorSpec(code);
    if (!spec) throw new Error(`OpenAPI: ${where} names error code '${code}', which no error catalogue registers`);
    const status = renderedStatus(route, code, override ?? spec.status);
    const entries = statuses.get(status) ?? [];
    let entry = entries.find((e) => e.code === code);
    if (!entry) {
      entry = { code, when: [] };
      entries.push(entry);
    }
    if (when !== undefined && !entry.when.includes(when)) entry.when.push(when);
    statuses.set(status, entries);
  }
  return statuses;
}

function describe(entries: readonly Entry[], existing: string | undefined): string {
  const codes = [...entries]
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((e) => (e.when.length === 0 ? `\`${e.code}\`` : `\`${e.code}\` (${e.when.join('; ')})`))
    .join(', ');
  const lead = existing?.trim() ? `${existing.trim().replace(/\.$/, '')}. ` : '';
  return `${lead}Codes: ${codes}.`;
}

/** Adds the error body schema and every operation's error responses to `document`. */
export function addErrorResponses(
  document: OpenAPIObject,
  routes: ReadonlyMap<string, DocumentedRoute>,
  credentialErrors: Readonly<Record<string, readonly string[]>>,
): void {
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, ...errorBodySchemas() };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
      const route = operation.operationId === undefined ? undefined : routes.get(operation.operationId);
      const where = `${method.toUpperCase()} ${path}`;
      const refs = [...implicitErrors(document, method, operation, credentialErrors), ...(route?.errors ?? [])];
      // A route with its own error body (ApiErrorBody) has every status documented with it;
      // one that renders only its 4xx in another body (RenderErrorsWith alone) documents those itself.
      const errorBody = route?.errorBody;
      if (errorBody) {
        const known = document.components.schemas[errorBody.name];
        if (known !== undefined && JSON.stringify(known) !== JSON.stringify(errorBody.schema)) {
          throw new Error(`OpenAPI: ${where} declares error body ${errorBody.name}, which another route declares otherwise`);
        }
        document.components.schemas[errorBody.name] = errorBody.schema;
      }
      const bodyRef = `#/components/schemas/${errorBody?.name ?? ERROR_BODY_SCHEMA}`;
      const own = route?.ownErrorBody === true && errorBody === undefined;
      for (const [status, entries] of byStatus(refs, where, route)) {
        if (own && status < 500) continue;
        const key = String(status);
        const existing = operation.responses[key] as ResponseObject | undefined;
        operation.responses[key] = {
          ...existing,
          description: describe(entries, existing?.description),
          ...(HEADERS[status] ? { headers: { ...HEADERS[status], ...existing?.headers } } : {}),
          content: { 'application/json': { schema: { $ref: bodyRef } } },
        };
      }
      if (own) continue;
      for (const [key, response] of Object.entries(operation.responses)) {
        if (Number(key) >= 400 && !('content' in (response as object))) {
          throw new Error(
            `OpenAPI: ${where} documents a ${key} answer no error code stands for; declare its codes with @ApiErrors`,
          );
        }
      }
    }
  }
}
