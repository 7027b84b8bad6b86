import type { ServiceDefinition } from '@app/platform';
import { VECTOR_ERRORS } from './errors';
import { VectorAppModule } from './app.module';
import { VectorConfig } from './config';

export const vectorService: ServiceDefinition<VectorConfig> = {
  name: 'vector-api',
  configClass: VectorConfig,
  module: (config) => VectorAppModule.forRoot(config),
  errors: VECTOR_ERRORS,
  openApi: {
    configure: (builder) =>
      builder.addSecurity('vector_token', {
        type: 'http',
        scheme: 'bearer',
        description: 'API token from POST /admin/v1/tokens',
      }),
    credentialErrors: { vector_token: ['invalid_api_key'] },
    title: 'vector-api',
    version: '1.0.0',
    description:
      'Vector search API: tables of embeddings with metadata, similarity queries with filters (flat, ivf, hnsw indexes).',
  },
};
