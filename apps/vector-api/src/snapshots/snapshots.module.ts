import { Module } from '@nestjs/common';
import { VectorConfig } from '../config';
import { DirectorySnapshotStore } from './directory-snapshot-store';
import { PostgresSnapshotStore } from './postgres-snapshot-store';
import { SNAPSHOT_STORE, type SnapshotStore } from './snapshot-store';
import { SnapshotsRepository } from './snapshots.repository';

/**
 * Provides the SnapshotStore (`@Inject(SNAPSHOT_STORE)`): files under `VECTOR_SNAPSHOT_DIR`
 * when it is set (VectorConfig checked at boot that it is a writable directory), else PostgreSQL.
 */
@Module({
  providers: [
    SnapshotsRepository,
    {
      provide: SNAPSHOT_STORE,
      inject: [VectorConfig, SnapshotsRepository],
      useFactory: (config: VectorConfig, repository: SnapshotsRepository): SnapshotStore =>
        config.VECTOR_SNAPSHOT_DIR
          ? new DirectorySnapshotStore(config.VECTOR_SNAPSHOT_DIR)
          : new PostgresSnapshotStore(repository),
    },
  ],
  exports: [SNAPSHOT_STORE],
})
export class SnapshotsModule {}
