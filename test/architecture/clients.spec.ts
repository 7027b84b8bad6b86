/**
 * The typed clients (clients/<svc>/schema.d.ts) are generated from the reviewed OpenAPI
 * snapshots that test/platform/openapi.e2e-spec.ts keeps identical to each service's live
 * /openapi.json. Here each schema is generated again in memory from its snapshot: a snapshot
 * changed without `npm run clients:generate` (or a hand-edited schema) fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CLIENTS, generateSchema, ROOT, schemaPath, snapshotPath } from '../../clients/generate.mjs';

describe.each(CLIENTS.map((client) => ({ ...client, name: `clients/${client.dir}` })))('$name', (client) => {
  it(`schema.d.ts is what openapi-typescript generates from ${client.service}'s OpenAPI snapshot`, async () => {
    expect(existsSync(snapshotPath(client))).toBe(true);
    const expected = await generateSchema(client);
    const committed = existsSync(schemaPath(client)) ? readFileSync(schemaPath(client), 'utf8') : '';
    if (committed !== expected) {
      const [want, have] = [expected.split('\n'), committed.split('\n')];
      const first = want.findIndex((text, i) => text !== have[i]);
      const line = first < 0 ? want.length : first;
      throw new Error(
        `${relative(ROOT, schemaPath(client))} is stale: it differs from what ${relative(ROOT, snapshotPath(client))} ` +
          `generates (line ${line + 1}: ${JSON.stringify(have[line])}, generated ${JSON.stringify(want[line])}). ` +
          `Run \`npm run clients:generate\` and review the diff.`,
      );
    }
  });

  it('is a workspace package of the repository with its exports', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}/clients/${client.dir}/package.json`, 'utf8')) as {
      name: string;
      type: string;
      exports: Record<string, { types: string; import: string }>;
    };
    expect(pkg.name).toBe(`@securities-platform/${client.dir}-client`);
    expect(pkg.type).toBe('module');
    expect(pkg.exports['.']).toEqual({ types: './index.d.ts', import: './index.js' });
  });
});
