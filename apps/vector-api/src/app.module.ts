import { ConsoleModule } from '@app/console';
import { ConsoleLinksAdminController } from './console-links/console-links-admin.controller';
import { ConsoleSessionsAdminController } from './console-sessions/console-sessions-admin.controller';
import { ProjectConsoleTenants } from './projects/project-console.tenants';
import { AuthModule } from '@app/auth';
import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { VectorConfig } from './config';
import { ProjectsModule } from './projects/projects.module';
import { SnapshotsModule } from './snapshots/snapshots.module';
import { TablesModule } from './tables/tables.module';
import { QdrantModule } from './compat/qdrant/qdrant.module';
import { VECTOR_CREDENTIAL_KINDS } from './tokens/credential-kinds';
import { TokensModule } from './tokens/tokens.module';
import { VectorTokenAuthenticator } from './tokens/vector-token.authenticator';

@Module({})
export class VectorAppModule {
  static forRoot(config: VectorConfig): DynamicModule {
    return {
      module: VectorAppModule,
      imports: [
        PlatformModule.forRoot({ service: 'vector-api', config, credentialKinds: VECTOR_CREDENTIAL_KINDS }),
        AuthModule.forRoot({
          authenticators: [VectorTokenAuthenticator],
          rateLimit: {
            namespace: 'vector',
            policyFor: () => ({ name: 'default', limit: config.VECTOR_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 }),
          },
        }),
        TokensModule,
        ProjectsModule,
        TablesModule,
        QdrantModule,
        SnapshotsModule,
        ConsoleModule.forRoot({
          tenants: ProjectConsoleTenants,
          imports: [ProjectsModule],
          controllers: [ConsoleLinksAdminController, ConsoleSessionsAdminController],
        }),
      ],
    };
  }
}
