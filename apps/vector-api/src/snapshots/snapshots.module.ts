import { Module } from '@nestjs/common';
import { VectorConfig } from '../config';
import { DirectorySnapshotStore } from './directory-snapshot-store';
import { PostgresSnapshotStore } from './postgres-snapshot-store';
import { SNAPSHOT_STORE, type SnapshotStore } from './snapshot-store';
import { SnapshotsRepository } from './snapshots.repository';

/**
 * Provides the SnapshotStore (`@Inject(SNAPSHOT_STORE)`): files under `VECTOR_SNAPSHOT_DIR`
 * when it is set (the directory must exist and be writable at boot), else PostgreSQL.
 */
@Module({
  providers: [
    SnapshotsRepository,
    {
      provide: SNAPSHOT_STORE,
      inject: [VectorConfig, SnapshotsRepository],
      useFactory: async (config: VectorConfig, repository: SnapshotsRepository): Promise<SnapshotStore> =>
        config.VECTOR_SNAPSHOT_DIR
          ? DirectorySnapshotStore.open(config.VECTOR_SNAPSHOT_DIR)
          : new PostgresSnapshotStore(repository),
    },
  ],
  exports: [SNAPSHOT_STORE],
})
export class SnapshotsModule {}
