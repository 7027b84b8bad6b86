import type { ServiceDefinition } from '@app/platform';
import { VECTOR_ERRORS } from './errors';
import { VectorAppModule } from './app.module';
import { VectorConfig } from './config';

export const vectorService: ServiceDefinition<VectorConfig> = {
  name: 'vector-api',
  configClass: VectorConfig,
  module: (config) => VectorAppModule.forRoot(config),
  errors: VECTOR_ERRORS,
  // Row ids are up to 512 characters (PATCH /v1/tables/{table}/vectors/{id}); an astral
  // character counts twice.
  maxParamLength: 1024,
  openApi: {
    configure: (builder) =>
      builder
        .addSecurity('vector_token', {
          type: 'http',
          scheme: 'bearer',
          description: "A project's API token (vt_…) from POST /admin/v1/projects/{id}/tokens or POST /v1/tokens",
        })
        .addSecurity('qdrant_api_key', {
          type: 'apiKey',
          in: 'header',
          name: 'api-key',
          description: "The Qdrant-compatible routes also take the project's API token in the api-key header (docs/qdrant.md)",
        }),
    credentialErrors: { vector_token: ['invalid_api_key'], qdrant_api_key: ['invalid_api_key'] },
    title: 'vector-api',
    version: '1.0.0',
    description:
      'Vector search API: projects own tables of embeddings with metadata; insert, upsert, fetch, update, list, count, delete, and similarity queries (cosine, dot or euclidean) with filters over flat, ivf and hnsw indexes.',
  },
};
