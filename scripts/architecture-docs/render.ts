/**
 * The generated tables of docs/architecture.md ("Where each URL is served", "Queues"),
 * rendered from the code (code-map.ts) and spliced between their markers. Used by
 * `npm run docs:architecture` (scripts/architecture-docs.ts) and
 * scripts/architecture-docs.spec.ts, which fails when the file and the code differ.
 */
import { markdownTable } from '../error-docs/render';
import { type ControllerInfo, folderOf, type QueueInfo } from './code-map';

export const DOC = 'docs/architecture.md';
export const REGIONS = ['urls', 'queues'] as const;
export type Region = (typeof REGIONS)[number];

export const beginMarker = (region: Region): string =>
  `<!-- generated: ${region} (npm run docs:architecture, from the code: edit the code, not this table) -->`;
export const END_MARKER = '<!-- /generated -->';

const code = (text: string): string => `\`${text}\``;
const APP_ORDER = ['offers-api', 'vector-api', 'payments-api'];

/** `api/v1/offers/:offer_id/indications` → `/api/v1/offers/{offer_id}/indications`. */
export const urlOf = (path: string): string => `/${path.replace(/^\/+/, '').replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;

/** Who serves a controller: its app, or every service for a lib's. */
const servedBy = (c: ControllerInfo): string => (c.file.startsWith('apps/') ? (c.file.split('/')[1] ?? '') : 'every service');

export function renderUrlTable(list: readonly ControllerInfo[]): string {
  const rank = (c: ControllerInfo): number => {
    const i = APP_ORDER.indexOf(servedBy(c));
    return i < 0 ? APP_ORDER.length : i;
  };
  const sorted = [...list].sort(
    (a, b) => rank(a) - rank(b) || urlOf(a.path).localeCompare(urlOf(b.path)) || a.file.localeCompare(b.file),
  );
  return markdownTable(
    ['Served by', 'URL prefix', 'Folder'],
    sorted.map((c) => [servedBy(c), code(urlOf(c.path)), code(folderOf(c.file))]),
  );
}

export function renderQueueTable(list: readonly QueueInfo[]): string {
  const sorted = [...list].sort((a, b) => a.name.localeCompare(b.name));
  return markdownTable(
    ['Queue', 'Declared in', 'Jobs'],
    sorted.map((q) => [code(q.name), code(q.file), q.jobs.map(code).join(', ')]),
  );
}

/** `doc` with each region's part between its markers replaced by `tables[region]`; throws when a marker is missing. */
export function spliceRegions(doc: string, tables: Readonly<Record<Region, string>>): string {
  let out = doc;
  for (const region of REGIONS) {
    const begin = out.indexOf(beginMarker(region));
    const end = begin < 0 ? -1 : out.indexOf(END_MARKER, begin);
    if (begin < 0 || end < 0) throw new Error(`${DOC} needs the markers ${beginMarker(region)} and ${END_MARKER}`);
    out = `${out.slice(0, begin + beginMarker(region).length)}\n\n${tables[region]}\n\n${out.slice(end)}`;
  }
  return out;
}

/** The part between a region's markers as it is in `doc`, trimmed. */
export function regionOf(doc: string, region: Region): string | undefined {
  const begin = doc.indexOf(beginMarker(region));
  const end = begin < 0 ? -1 : doc.indexOf(END_MARKER, begin);
  return begin < 0 || end < 0 ? undefined : doc.slice(begin + beginMarker(region).length, end).trim();
}
