/**
 * LangChain.js's Qdrant store (`@langchain/qdrant`, unmodified) against vector-api listening on a
 * loopback port: the store is given vector-api's URL and a vector token, nothing else (issue 34).
 * Embeddings are word counts (word-vectors.ts), so which documents come back, in which order and
 * with which cosine scores is known in advance.
 */
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { QdrantVectorStore } from '@langchain/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { listen } from '../clients/support';
import { newProject, startVectorApp, type VectorTestApp } from './support';
import { cosine, embedWords } from './word-vectors';

class WordEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map(embedWords));
  }
  embedQuery(text: string): Promise<number[]> {
    return Promise.resolve(embedWords(text));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEXTS = ['apple apple banana', 'banana cherry', 'apple cherry', 'rainy rainy'];
const METADATAS = [{ source: 'a' }, { source: 'b' }, { source: 'a' }, { source: 'c' }];

describe('@langchain/qdrant against vector-api', () => {
  let t: VectorTestApp;
  let url: string;
  let apiKey: string;
  let otherKey: string;
  let store: QdrantVectorStore;
  const embeddings = new WordEmbeddings();
  const warnings: string[] = [];
  const consoleWarn = console.warn;

  const texts = (docs: Document[]): string[] => docs.map((d) => d.pageContent);

  beforeAll(async () => {
    // The client warns on every construction that an api key travels over plain http.
    console.warn = (...args: unknown[]) => void warnings.push(String(args[0]));
    t = await startVectorApp();
    url = await listen(t);
    apiKey = (await newProject(t.app, 'langchain')).token;
    otherKey = (await newProject(t.app, 'langchain-other')).token;
  });
  afterAll(async () => {
    await t.close();
    console.warn = consoleWarn;
  });

  it('fromTexts creates the collection (Cosine, the embedding size) and stores every text', async () => {
    const raw = new QdrantClient({ url, apiKey });
    expect((await raw.getCollections()).collections.map((c) => c.name)).not.toContain('docs');

    store = await QdrantVectorStore.fromTexts(TEXTS, METADATAS, embeddings, { url, apiKey, collectionName: 'docs' });

    expect((await raw.getCollections()).collections.map((c) => c.name)).toContain('docs');
    const info = await raw.getCollection('docs');
    expect(info.points_count).toBe(4);
    expect(info.config.params.vectors).toMatchObject({ size: embedWords('x').length, distance: 'Cosine' });
    // The payload is LangChain's {content, metadata}, as it wrote it.
    const { points } = await raw.scroll('docs', { limit: 10, with_payload: true });
    expect(points.map((p) => p.payload).sort((x, y) => String(x?.content).localeCompare(String(y?.content)))).toEqual(
      [0, 1, 2, 3].map((i) => ({ content: TEXTS[i], metadata: METADATAS[i] })).sort((x, y) => x.content.localeCompare(y.content)),
    );
  });

  it('similaritySearch answers the nearest documents first, with their metadata and uuid ids', async () => {
    const found = await store.similaritySearch('apple', 2);
    expect(texts(found)).toEqual(['apple apple banana', 'apple cherry']);
    expect(found.map((d) => d.metadata)).toEqual([{ source: 'a' }, { source: 'a' }]);
    for (const d of found) expect(d.id).toMatch(UUID);
    expect(new Set(found.map((d) => d.id)).size).toBe(2);
  });

  it('similaritySearch with a metadata.* filter returns only matching documents, nearest first', async () => {
    // Unfiltered, banana's nearest is "banana cherry" (source b) …
    expect(texts(await store.similaritySearch('banana', 2))).toEqual(['banana cherry', 'apple apple banana']);
    // … filtered to source a, it is not there, and k=4 finds exactly the two documents of source a.
    const filtered = await store.similaritySearch('banana', 4, { must: [{ key: 'metadata.source', match: { value: 'a' } }] });
    expect(texts(filtered)).toEqual(['apple apple banana', 'apple cherry']);
    const none = await store.similaritySearch('banana', 4, { must: [{ key: 'metadata.source', match: { value: 'zzz' } }] });
    expect(none).toEqual([]);
    const notA = await store.similaritySearch('banana', 4, { must_not: [{ key: 'metadata.source', match: { value: 'a' } }] });
    expect(texts(notA).sort()).toEqual(['banana cherry', 'rainy rainy']);
  });

  it("similaritySearchWithScore reports Qdrant's cosine similarity: highest first, negative when opposite", async () => {
    const scored = await store.similaritySearchWithScore('apple sunny', 4);
    expect(scored.map(([d]) => d.pageContent)).toEqual(['apple apple banana', 'apple cherry', 'banana cherry', 'rainy rainy']);
    const q = embedWords('apple sunny');
    scored.forEach(([d, score]) => expect(score).toBeCloseTo(cosine(q, embedWords(d.pageContent)), 4));
    const scores = scored.map(([, s]) => s);
    expect(scores[0]).toBeCloseTo(2 / Math.sqrt(10), 4);
    expect(scores[3]).toBeLessThan(0); // not clamped to 0–1
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  it('addDocuments keeps nested metadata (text splitter loc.lines) and filters reach into it with ranges', async () => {
    const split = (text: string, from: number): Document =>
      new Document({ pageContent: text, metadata: { source: 'split', loc: { lines: { from, to: from + 9 } } } });
    await store.addDocuments([split('fig', 1), split('fig grape', 11), split('grape grape fig', 21)]);

    const all = await store.similaritySearch('fig', 3);
    expect(texts(all)).toEqual(['fig', 'fig grape', 'grape grape fig']);
    expect(all[1].metadata).toEqual({ source: 'split', loc: { lines: { from: 11, to: 20 } } });

    const later = await store.similaritySearch('fig', 10, { must: [{ key: 'metadata.loc.lines.from', range: { gte: 11 } }] });
    expect(texts(later)).toEqual(['fig grape', 'grape grape fig']);
    const first = await store.similaritySearch('fig', 10, {
      must: [
        { key: 'metadata.source', match: { value: 'split' } },
        { key: 'metadata.loc.lines.from', range: { lt: 11 } },
      ],
    });
    expect(texts(first)).toEqual(['fig']);
    expect(first[0].metadata).toEqual({ source: 'split', loc: { lines: { from: 1, to: 10 } } });
  });

  it('delete({ids}) and delete({filter}) remove exactly those points', async () => {
    const split = { must: [{ key: 'metadata.source', match: { value: 'split' } }] };
    const [fig] = await store.similaritySearch('fig', 1, split);
    expect(fig.pageContent).toBe('fig');
    await store.delete({ ids: [fig.id as string] });
    expect(texts(await store.similaritySearch('fig', 10, split))).toEqual(['fig grape', 'grape grape fig']);

    const sourceC = { must: [{ key: 'metadata.source', match: { value: 'c' } }] };
    expect(texts(await store.similaritySearch('rainy', 10, sourceC))).toEqual(['rainy rainy']);
    await store.delete({ filter: sourceC });
    expect(await store.similaritySearch('rainy', 10, sourceC)).toEqual([]);
    expect((await new QdrantClient({ url, apiKey }).count('docs', { exact: true })).count).toBe(5);
  });

  it("a store on another project's token cannot see the collection, and its own same-named one is separate", async () => {
    const foreign = new QdrantClient({ url, apiKey: otherKey });
    expect((await foreign.getCollections()).collections.map((c) => c.name)).not.toContain('docs');
    await expect(foreign.getCollection('docs')).rejects.toMatchObject({ status: 404 });

    // LangChain lists the collections, does not find "docs", and creates the project's own.
    const other = new QdrantVectorStore(embeddings, { url, apiKey: otherKey, collectionName: 'docs' });
    expect(await other.similaritySearch('apple', 4)).toEqual([]);
    await other.addDocuments([new Document({ pageContent: 'apple apple apple', metadata: { source: 'other' } })]);
    expect(texts(await other.similaritySearch('apple', 4))).toEqual(['apple apple apple']);

    // The first project's collection is untouched and does not see the other's document.
    const mine = await store.similaritySearch('apple', 10);
    expect(texts(mine)).not.toContain('apple apple apple');
    expect(texts(mine).slice(0, 2)).toEqual(['apple apple banana', 'apple cherry']);
    expect((await new QdrantClient({ url, apiKey }).count('docs', { exact: true })).count).toBe(5);
  });

  it('the client found a compatible server version on GET / (no compatibility warning)', () => {
    expect(warnings.filter((m) => /incompatible|Failed to obtain server version/.test(m))).toEqual([]);
    expect(warnings.length).toBeGreaterThan(0); // the http warning shows the clients were watched
  });
});
