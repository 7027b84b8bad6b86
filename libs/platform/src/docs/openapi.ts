import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, type ParameterObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformConfig } from '../config/platform-config';
import { addErrorResponses } from './error-responses';
import { documentedRoutes } from './routes';
import { serverUrl } from './servers';
import { applyValidationRules } from './validator-schemas';

export interface OpenApiOptions {
  readonly title: string;
  readonly description: string;
  readonly version: string;
  /** Extra security schemes the service's own routes use (besides `admin`). */
  readonly configure?: (builder: DocumentBuilder) => DocumentBuilder;
  /**
   * The 401 codes each of those schemes' credentials can fail with, besides
   * `authentication_required` (no credentials), e.g. `{ partner: ['invalid_token'] }`.
   * Every scheme `configure` declares needs an entry.
   */
  readonly credentialErrors?: Readonly<Record<string, readonly string[]>>;
}

/** The platform's own scheme (AdminOnly) and what its credentials fail with. */
const ADMIN_CREDENTIAL_ERRORS = { admin: ['invalid_api_key'] } as const;

/** Idempotency-Key is honoured on POST only (IdempotencyInterceptor): not a parameter of a controller's other routes. */
function dropIdempotencyKeyOutsidePost(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { parameters?: ParameterObject[] }>)) {
      if (method === 'post' || !operation.parameters) continue;
      operation.parameters = operation.parameters.filter((p) => !(p.in === 'header' && p.name === 'Idempotency-Key'));
    }
  }
}

/**
 * The service's OpenAPI document: what @nestjs/swagger reads from the controllers, with the
 * request schemas completed from the validators and every operation's error responses
 * (docs/validator-schemas.ts, docs/error-responses.ts). Boot stops if they disagree.
 */
export function buildOpenApiDocument(app: NestFastifyApplication, options: OpenApiOptions): OpenAPIObject {
  let builder = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addSecurity('admin', { type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' });
  if (options.configure) builder = options.configure(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  const routes = documentedRoutes(app);
  dropIdempotencyKeyOutsidePost(document);
  applyValidationRules(document, routes);
  addErrorResponses(document, routes, { ...options.credentialErrors, ...ADMIN_CREDENTIAL_ERRORS });
  return document;
}

/**
 * Serves the OpenAPI UI at `/docs` and the document at `/openapi.json` and `/openapi.yaml`.
 * `servers` is the service's public URL (`*_PUBLIC_URL`), else the origin of the request
 * for the document (docs/servers.ts), so the UI's "Try it out" calls the service it came from.
 */
export function setupOpenApi(app: NestFastifyApplication, options: OpenApiOptions, config: PlatformConfig): OpenAPIObject {
  const document = buildOpenApiDocument(app, options);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    patchDocumentOnRequest: (request, reply, doc) => {
      // Without a configured public URL the document (and the UI's init script) depends on the
      // request's Host: a shared cache must not hand one client's copy to another.
      if (config.publicUrl === undefined)
        (reply as FastifyReply).header('Vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto').header('Cache-Control', 'no-store');
      return { ...doc, servers: [{ url: serverUrl(request as FastifyRequest, config) }] };
    },
  });
  return document;
}
