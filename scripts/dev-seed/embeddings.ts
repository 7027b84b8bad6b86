/**
 * Real text embeddings for the vector demo, from the npm package
 * `@sap-ux/fiori-docs-embeddings` (Apache-2.0): 778 chunks of SAP Fiori documentation,
 * embedded with all-MiniLM-L6-v2 (384 dimensions, unit length), as a flat little-endian
 * float32 file (`data/embeddings/embeddings.bin`, row i = line i of `records.jsonl`).
 * Read from its files (not its ESM entry point) so it loads the same from CommonJS and Jest.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const EMBEDDINGS_PACKAGE = '@sap-ux/fiori-docs-embeddings';
export const EMBEDDING_DIMENSION = 384;

export interface DemoArticle {
  readonly id: string;
  readonly embedding: number[];
  readonly metadata: {
    readonly title: string;
    readonly category: string;
    readonly tags: string[];
    readonly words: number;
    readonly chunk: number;
    readonly source: string;
    readonly excerpt: string;
  };
}

interface PackageRecord {
  id: string;
  title?: string;
  category?: string;
  path?: string;
  chunk_index?: number;
  tags_json?: string;
  wordCount?: number;
  excerpt?: string;
}

/** Every record with its embedding; `root` is the directory whose node_modules holds the package. */
export function loadDemoArticles(root: string): DemoArticle[] {
  let packageJson: string;
  try {
    packageJson = createRequire(join(root, 'package.json')).resolve(`${EMBEDDINGS_PACKAGE}/package.json`);
  } catch {
    throw new Error(`the demo embeddings package ${EMBEDDINGS_PACKAGE} is not installed (run npm install)`);
  }
  const dir = join(dirname(packageJson), 'data', 'embeddings');
  const records = readFileSync(join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PackageRecord);
  const bin = readFileSync(join(dir, 'embeddings.bin'));
  const rowBytes = EMBEDDING_DIMENSION * 4;
  if (bin.length !== records.length * rowBytes) {
    throw new Error(`${EMBEDDINGS_PACKAGE}: ${records.length} records but ${bin.length / rowBytes} embeddings`);
  }
  return records.map((record, i) => {
    const embedding: number[] = [];
    for (let d = 0; d < EMBEDDING_DIMENSION; d++) embedding.push(bin.readFloatLE(i * rowBytes + d * 4));
    return {
      id: record.id,
      embedding,
      metadata: {
        title: record.title ?? record.id,
        category: record.category ?? 'Other',
        tags: tagsOf(record.tags_json),
        words: record.wordCount ?? 0,
        chunk: record.chunk_index ?? 0,
        source: record.path ?? '',
        excerpt: excerptOf(record.excerpt ?? ''),
      },
    };
  });
}

function tagsOf(json: string | undefined): string[] {
  try {
    const tags: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string').slice(0, 20) : [];
  } catch {
    return [];
  }
}

/** The first ~240 characters of the chunk, without markdown emphasis, on one line. */
function excerptOf(text: string): string {
  const flat = text.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
  return flat.length <= 240 ? flat : `${flat.slice(0, 239)}…`;
}
