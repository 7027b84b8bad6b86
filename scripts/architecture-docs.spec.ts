/**
 * docs/architecture.md's URL → folder table and queue table are what
 * `npm run docs:architecture` renders from the code (the `@Controller` classes and the
 * `defineQueue` calls): this fails when they differ, as error-docs.spec.ts does for docs/errors.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { controllers, controllersIn, queues, queuesIn } from './architecture-docs/code-map';
import {
  beginMarker,
  DOC,
  END_MARKER,
  regionOf,
  renderQueueTable,
  renderUrlTable,
  spliceRegions,
} from './architecture-docs/render';

const ROOT = process.cwd();

describe('docs/architecture.md generated tables', () => {
  const doc = readFileSync(join(ROOT, DOC), 'utf8');
  const tables = { urls: renderUrlTable(controllers(ROOT)), queues: renderQueueTable(queues(ROOT)) };

  it('hold, between their markers, what npm run docs:architecture renders from the code (on a difference: run it)', () => {
    expect(regionOf(doc, 'urls')).toBe(tables.urls);
    expect(regionOf(doc, 'queues')).toBe(tables.queues);
    expect(spliceRegions(doc, tables)).toBe(doc);
  });

  it('list every controller and every queue (those the hand-written tables had lost included)', () => {
    expect(controllers(ROOT).length).toBeGreaterThan(30);
    expect(tables.urls).toContain('| offers-api    | `/api/v1/clients`');
    expect(tables.urls).toContain('| payments-api  | `/admin/v1/console-sessions`');
    expect(tables.queues).toContain('| `payments-authorizations`');
    expect(tables.queues).toContain('`open`, `closing_soon`, `close`, `sweep`');
  });

  it('detect a drift: a stale table is replaced, a missing marker is an error', () => {
    const stale = doc.replace('`/api/v1/clients`', '`/api/v1/customers`');
    expect(stale).not.toBe(doc);
    expect(spliceRegions(stale, tables)).toBe(doc);
    expect(() => spliceRegions(doc.replace(beginMarker('queues'), ''), tables)).toThrow(/markers/);
    expect(doc.split(END_MARKER).length).toBe(3);
  });

  it('read controllers, compat adapters and job maps from fixture sources', () => {
    const compat = controllersIn(
      'apps/vector-api/src/compat/qdrant/collections.controller.ts',
      "@Controller('collections/:name')\nexport class QdrantCollectionsController {}",
    );
    expect(renderUrlTable(compat)).toContain('| vector-api | `/collections/{name}` | `apps/vector-api/src/compat/qdrant/` |');
    const fixture = [
      "enum Job { Run = 'run', Stop = 'stop' }",
      'type Jobs = { readonly [Job.Run]: object; readonly [Job.Stop]: object; extra: object };',
      "export const Q = defineQueue<Jobs>('things');",
      'export const R = (t: string) => defineQueue<{ go: object }>(`other-${t}`);',
    ].join('\n');
    expect(queuesIn('apps/x/src/things.jobs.ts', fixture)).toEqual([
      { name: 'things', file: 'apps/x/src/things.jobs.ts', jobs: ['run', 'stop', 'extra'] },
      { name: 'other-<t>', file: 'apps/x/src/things.jobs.ts', jobs: ['go'] },
    ]);
  });
});
