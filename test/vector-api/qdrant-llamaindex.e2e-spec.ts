/**
 * LlamaIndex.TS's Qdrant store (`@llamaindex/qdrant`, unmodified) against vector-api listening on
 * a loopback port (issue 34): the store creates its collection, adds nodes, queries with topK and
 * with each metadata filter operator it translates to Qdrant, and deletes by ref doc id.
 * Node embeddings are fixed vectors whose cosine to the query differs for every node, so the
 * expected answer of each filter is "the fixture nodes it selects, by descending cosine".
 */
import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { MetadataMode, NodeRelationship, TextNode, type Metadata } from '@llamaindex/core/schema';
import {
  FilterCondition,
  FilterOperator,
  VectorStoreQueryMode,
  type MetadataFilter,
  type MetadataFilters,
  type VectorStoreQueryResult,
} from '@llamaindex/core/vector-store';
import { QdrantVectorStore } from '@llamaindex/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { listen } from '../clients/support';
import { eventually, newProject, startVectorApp, type VectorTestApp } from './support';
import { cosine } from './word-vectors';

/** Never asked to embed here (nodes carry their embeddings), but the store requires a model. */
class FixedEmbedding extends BaseEmbedding {
  constructor() {
    super();
  }
  getTextEmbedding(): Promise<number[]> {
    return Promise.resolve([1, 0, 0, 0]);
  }
}

interface Fixture {
  readonly id: string;
  readonly text: string;
  readonly embedding: number[];
  readonly metadata: Metadata;
  readonly doc?: string;
}

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const QUERY = [1, 0, 0, 0];
// Cosines to QUERY: 1, 0.994, 0.936, 0.707, 0.316, 0, -0.707 (all different).
const NODES: Fixture[] = [
  {
    id: id(1),
    text: 'one',
    embedding: [1, 0, 0, 0],
    doc: 'doc-fruit',
    metadata: { color: 'red', n: 1, code: '7', tag: ['x'], info: { year: 2019 } },
  },
  {
    id: id(2),
    text: 'two',
    embedding: [0.9, 0.1, 0, 0],
    doc: 'doc-fruit',
    metadata: { color: 'yellow', n: 2, code: '8', tag: [], info: { year: 2020 } },
  },
  {
    id: id(3),
    text: 'three',
    embedding: [0.8, 0.3, 0, 0],
    doc: 'doc-fruit',
    metadata: { color: 'green', n: 3, info: { year: 2021 } },
  },
  { id: id(4), text: 'four', embedding: [0.6, 0.6, 0, 0], doc: 'doc-veg', metadata: { color: 'light green', n: 4, tag: ['y'] } },
  { id: id(5), text: 'five', embedding: [0.3, 0.9, 0, 0], doc: 'doc-veg', metadata: { n: 5, tag: ['x', 'y'] } },
  { id: id(6), text: 'six', embedding: [0, 1, 0, 0], doc: 'doc-veg', metadata: { color: 'red', n: 6 } },
  { id: id(7), text: 'seven', embedding: [-0.5, 0.5, 0, 0], metadata: { color: 'dark red', n: 7 } },
];

function node(f: Fixture): TextNode {
  return new TextNode({
    id_: f.id,
    text: f.text,
    embedding: f.embedding,
    metadata: { ...f.metadata },
    ...(f.doc ? { relationships: { [NodeRelationship.SOURCE]: { nodeId: f.doc, metadata: {} } } } : {}),
  });
}

/** The fixture nodes `pick` selects, nearest to QUERY first. */
function expected(pick: (f: Fixture) => boolean): string[] {
  return NODES.filter(pick)
    .sort((a, b) => cosine(QUERY, b.embedding) - cosine(QUERY, a.embedding))
    .map((f) => f.id);
}

describe('@llamaindex/qdrant against vector-api', () => {
  let t: VectorTestApp;
  let url: string;
  let apiKey: string;
  let store: QdrantVectorStore;
  const consoleWarn = console.warn;

  const query = (filters?: MetadataFilters, extra: { docIds?: string[]; topK?: number } = {}): Promise<VectorStoreQueryResult> =>
    store.query({
      queryEmbedding: QUERY,
      similarityTopK: extra.topK ?? 10,
      mode: VectorStoreQueryMode.DEFAULT,
      ...(filters ? { filters } : {}),
      ...(extra.docIds ? { docIds: extra.docIds } : {}),
    });
  const one = (filter: MetadataFilter): MetadataFilters => ({ filters: [filter] });

  beforeAll(async () => {
    console.warn = () => undefined; // the client warns that an api key travels over plain http
    t = await startVectorApp();
    url = await listen(t);
    apiKey = (await newProject(t.app, 'llamaindex')).token;
    store = new QdrantVectorStore({ url, apiKey, collectionName: 'nodes', embeddingModel: new FixedEmbedding() });
  });
  afterAll(async () => {
    await t.close();
    console.warn = consoleWarn;
  });

  it('add creates the missing collection (Cosine, the nodes’ dimension) and stores every node', async () => {
    const ids = await store.add(NODES.map(node));
    expect(ids).toEqual(NODES.map((f) => f.id));
    const info = await new QdrantClient({ url, apiKey }).getCollection('nodes');
    expect(info.points_count).toBe(NODES.length);
    expect(info.config.params.vectors).toMatchObject({ size: 4, distance: 'Cosine' });
  });

  it('query with topK answers the nearest nodes first, with their text, metadata and cosine similarity', async () => {
    const res = await query(undefined, { topK: 3 });
    expect(res.ids).toEqual([id(1), id(2), id(3)]);
    expect(res.nodes?.map((n) => n.getContent(MetadataMode.NONE))).toEqual(['one', 'two', 'three']);
    expect(res.nodes?.map((n) => n.metadata)).toEqual([NODES[0].metadata, NODES[1].metadata, NODES[2].metadata]);
    res.similarities.forEach((s, i) => expect(s).toBeCloseTo(cosine(QUERY, NODES[i].embedding), 4));

    const all = await query();
    expect(all.ids).toEqual(expected(() => true));
    expect(all.similarities[all.similarities.length - 1]).toBeCloseTo(-Math.SQRT1_2, 4); // not clamped
  });

  const text = (f: Fixture, key: string): string | undefined => {
    const v: unknown = f.metadata[key];
    return typeof v === 'string' ? v : undefined;
  };
  const num = (f: Fixture): number => f.metadata.n as number;
  const cases: Array<[string, MetadataFilters, (f: Fixture) => boolean]> = [
    [
      'EQ on a string (match.value)',
      one({ key: 'color', value: 'red', operator: FilterOperator.EQ }),
      (f) => text(f, 'color') === 'red',
    ],
    ['EQ on a number (range gte=lte)', one({ key: 'n', value: 3, operator: FilterOperator.EQ }), (f) => num(f) === 3],
    // match.except: a node without the key does not match (Qdrant), so five is not "!= red".
    [
      'NE (match.except)',
      one({ key: 'color', value: 'red', operator: FilterOperator.NE }),
      (f) => text(f, 'color') !== undefined && text(f, 'color') !== 'red',
    ],
    ['GT (range.gt)', one({ key: 'n', value: 5, operator: FilterOperator.GT }), (f) => num(f) > 5],
    ['GTE (range.gte)', one({ key: 'n', value: 5, operator: FilterOperator.GTE }), (f) => num(f) >= 5],
    ['LT (range.lt)', one({ key: 'n', value: 2, operator: FilterOperator.LT }), (f) => num(f) < 2],
    ['LTE (range.lte)', one({ key: 'n', value: 2, operator: FilterOperator.LTE }), (f) => num(f) <= 2],
    [
      'IN (match.any)',
      one({ key: 'color', value: ['red', 'green'], operator: FilterOperator.IN }),
      (f) => ['red', 'green'].includes(text(f, 'color') ?? ''),
    ],
    ['IN on string codes', one({ key: 'code', value: ['7'], operator: FilterOperator.IN }), (f) => text(f, 'code') === '7'],
    // LlamaIndex stringifies IN values: ["1","2"] never equals the numbers 1 and 2, as in Qdrant.
    ['IN with numbers (sent as strings)', one({ key: 'n', value: [1, 2], operator: FilterOperator.IN }), () => false],
    [
      'NIN (match.except of a list)',
      one({ key: 'color', value: ['red', 'yellow'], operator: FilterOperator.NIN }),
      (f) => text(f, 'color') !== undefined && !['red', 'yellow'].includes(text(f, 'color') ?? ''),
    ],
    [
      'TEXT_MATCH (match.text)',
      one({ key: 'color', value: 'green', operator: FilterOperator.TEXT_MATCH }),
      (f) => (text(f, 'color') ?? '').includes('green'),
    ],
    // is_empty: missing or [] (two and three, six and seven).
    [
      'IS_EMPTY (is_empty)',
      one({ key: 'tag', value: '', operator: FilterOperator.IS_EMPTY }),
      (f) => !Array.isArray(f.metadata.tag) || (f.metadata.tag as unknown[]).length === 0,
    ],
    [
      'a dotted key into nested metadata',
      one({ key: 'info.year', value: 2020, operator: FilterOperator.GTE }),
      (f) => ((f.metadata.info as { year?: number } | undefined)?.year ?? 0) >= 2020,
    ],
    [
      'several filters, ANDed (the default condition)',
      {
        filters: [
          { key: 'color', value: ['red', 'green'], operator: FilterOperator.IN },
          { key: 'n', value: 1, operator: FilterOperator.GT },
        ],
      },
      (f) => ['red', 'green'].includes(text(f, 'color') ?? '') && num(f) > 1,
    ],
    [
      'condition OR (should)',
      {
        condition: FilterCondition.OR,
        filters: [
          { key: 'color', value: 'red', operator: FilterOperator.EQ },
          { key: 'n', value: 4, operator: FilterOperator.EQ },
        ],
      },
      (f) => text(f, 'color') === 'red' || num(f) === 4,
    ],
  ];

  it.each(cases)('query with %s selects exactly the matching nodes, nearest first', async (_name, filters, pick) => {
    const res = await query(filters);
    expect(res.ids).toEqual(expected(pick));
  });

  it('query with docIds selects the nodes of those source documents', async () => {
    expect((await query(undefined, { docIds: ['doc-veg'] })).ids).toEqual(expected((f) => f.doc === 'doc-veg'));
  });

  it('delete(refDocId) removes every node of that document and nothing else', async () => {
    await store.delete('doc-fruit');
    // LlamaIndex sends this delete without `wait`: visible once applied, so wait for it.
    const remaining = expected((f) => f.doc !== 'doc-fruit');
    expect(await eventually(async () => JSON.stringify((await query()).ids) === JSON.stringify(remaining))).toBe(true);
    expect((await new QdrantClient({ url, apiKey }).count('nodes', { exact: true })).count).toBe(remaining.length);
  });

  it('a new store on the existing collection adds to it (getCollection succeeds, nothing is recreated)', async () => {
    const again = new QdrantVectorStore({ url, apiKey, collectionName: 'nodes', embeddingModel: new FixedEmbedding() });
    const extra: Fixture = {
      id: id(8),
      text: 'eight',
      embedding: [0.95, 0.05, 0, 0],
      doc: 'doc-new',
      metadata: { color: 'blue', n: 8 },
    };
    await again.add([node(extra)]);
    const res = await query();
    expect(res.ids).toEqual([id(8), ...expected((f) => f.doc !== 'doc-fruit')]);
    expect(res.nodes?.[0].metadata).toEqual({ color: 'blue', n: 8 });
  });
});
