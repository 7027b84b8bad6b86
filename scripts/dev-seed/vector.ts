/**
 * The vector demo: project "Demo Project" with a table `articles` of real text embeddings
 * (embeddings.ts) on an hnsw index, each row with metadata to filter on (category, tags,
 * words) and to read (title, excerpt).
 */
import { type DemoArticle, EMBEDDING_DIMENSION } from './embeddings';
import type { SeedClient } from './http';

export const DEMO_TABLE = 'articles';
/** Rows per insert request (≈ 1.5 MB of JSON each). */
const BATCH = 200;

export interface VectorDemo {
  readonly projectId: string;
  readonly token: string;
  readonly rows: number;
}

export async function seedVector(admin: SeedClient, articles: readonly DemoArticle[]): Promise<VectorDemo> {
  const project = await admin.post<{ id: string }>('/admin/v1/projects', { name: 'Demo Project' });
  const token = await admin.post<{ token: string }>(`/admin/v1/projects/${project.id}/tokens`, { name: 'demo data' });
  const api = admin.as(token.token);
  await api.post('/v1/tables', { name: DEMO_TABLE, dimension: EMBEDDING_DIMENSION, index: 'hnsw', metric: 'cosine' });
  let rows = 0;
  for (let start = 0; start < articles.length; start += BATCH) {
    const batch = articles.slice(start, start + BATCH);
    const res = await api.post<{ inserted: number }>(`/v1/tables/${DEMO_TABLE}/insert`, { rows: batch });
    rows += res.inserted;
  }
  return { projectId: project.id, token: token.token, rows };
}
