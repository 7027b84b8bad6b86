import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export interface OpenApiOptions {
  readonly title: string;
  readonly description: string;
  readonly version: string;
  /** Extra security schemes the service's own routes use (besides `admin`). */
  readonly configure?: (builder: DocumentBuilder) => DocumentBuilder;
}

/** Serves the OpenAPI UI at `/docs` and the document at `/openapi.json`. */
export function setupOpenApi(app: NestFastifyApplication, options: OpenApiOptions): OpenAPIObject {
  let builder = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY' }, 'admin');
  if (options.configure) builder = options.configure(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  return document;
}
