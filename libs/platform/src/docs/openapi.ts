import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { PlatformConfig } from '../config/platform-config';
import { serverUrl } from './servers';

export interface OpenApiOptions {
  readonly title: string;
  readonly description: string;
  readonly version: string;
  /** Extra security schemes the service's own routes use (besides `admin`). */
  readonly configure?: (builder: DocumentBuilder) => DocumentBuilder;
}

/**
 * Serves the OpenAPI UI at `/docs` and the document at `/openapi.json` and `/openapi.yaml`.
 * `servers` is the service's public URL (`*_PUBLIC_URL`), else the origin of the request
 * for the document (docs/servers.ts), so the UI's "Try it out" calls the service it came from.
 */
export function setupOpenApi(app: NestFastifyApplication, options: OpenApiOptions, config: PlatformConfig): OpenAPIObject {
  let builder = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' }, 'admin');
  if (options.configure) builder = options.configure(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    patchDocumentOnRequest: (request, _reply, doc) => ({
      ...doc,
      servers: [{ url: serverUrl(request as FastifyRequest, config) }],
    }),
  });
  return document;
}
