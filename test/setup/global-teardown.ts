/** Drops every database this run created, then stops what global setup started. */
import { Client } from 'pg';
import { getTestInfra } from './infra-state';

export default async function globalTeardown(): Promise<void> {
  const infra = getTestInfra();
  if (!infra) return;
  const client = new Client({ connectionString: infra.adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `platform_test_${infra.runId}_%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  for (const service of infra.started.reverse()) await service.stop();
}
