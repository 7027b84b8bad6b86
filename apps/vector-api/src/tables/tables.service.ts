import { NotFoundError } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { type Filter, FilterError, type Metadata, parseFilter, parseMetadata } from '../engine/filter';
import type { CreateTableDto, TableDeletedDto, TableDto, TableListDto } from './dto/table.dto';
import type { DeletedDto, DeleteVectorsDto, InsertedDto, InsertVectorsDto, QueryDto, QueryResponseDto } from './dto/vectors.dto';
import { type LiveTable, LiveTables } from './live-tables';
import { type NewRow, TablesRepository } from './tables.repository';
import { VectorError } from '../errors';

/** Ids named in an error body are capped so a 1000-row batch cannot produce a huge error. */
const MAX_IDS_IN_ERROR = 100;

function idsDetail(ids: readonly string[]): { ids: string[] } {
  return { ids: ids.slice(0, MAX_IDS_IN_ERROR) };
}

function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, 10).map((id) => `'${id}'`);
  return ids.length > 10 ? `${shown.join(', ')} and ${ids.length - 10} more` : shown.join(', ');
}

/** A plain loop: `.every` with a type-guard callback was ~100× slower on 4M elements. */
function allFinite(values: readonly unknown[]): values is number[] {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  }
  return true;
}

/**
 * The rules of vector tables (vector-search.md + platform contract, "Vector service
 * decisions"): validation, all-or-nothing writes acknowledged after commit, queries.
 */
@Injectable()
export class TablesService {
  constructor(
    private readonly repo: TablesRepository,
    private readonly live: LiveTables,
  ) {}

  private view(t: LiveTable): TableDto {
    const status = t.collection.status();
    return {
      name: t.name,
      dimension: t.dimension,
      index: t.indexKind,
      rows: t.collection.size,
      index_status: { state: status.state, details: { ...status.details } },
      created_at: t.createdAt.toISOString(),
    };
  }

  private async table(name: string): Promise<LiveTable> {
    const t = await this.live.resolve(name);
    if (!t) throw new NotFoundError('table', name, 'table');
    return t;
  }

  async create(dto: CreateTableDto): Promise<TableDto> {
    const head = await this.repo.createTable(dto.name, dto.dimension, dto.index ?? 'flat');
    if (!head) throw new VectorError('resource_already_exists', `A table named '${dto.name}' already exists.`, { param: 'name' });
    return this.view(this.live.created(head));
  }

  list(): TableListDto {
    return { data: this.live.all().map((t) => this.view(t)) };
  }

  async get(name: string): Promise<TableDto> {
    return this.view(await this.table(name));
  }

  async drop(name: string): Promise<TableDeletedDto> {
    if (!(await this.repo.deleteTable(name))) throw new NotFoundError('table', name, 'table');
    this.live.dropped(name);
    return { name, deleted: true };
  }

  /** Validates the whole batch first; any bad row rejects it, naming every offending id. */
  private checkRows(t: LiveTable, dto: InsertVectorsDto): NewRow[] {
    const rows = dto.rows;
    const malformed: string[] = [];
    let firstMalformed: number | undefined;
    const metadata: Array<Metadata | undefined> = [];
    let metadataError: FilterError | undefined;
    rows.forEach((r, i) => {
      if (!allFinite(r.embedding)) {
        malformed.push(r.id);
        firstMalformed ??= i;
      }
      try {
        metadata.push(r.metadata === undefined ? undefined : parseMetadata(r.metadata, `rows[${i}].metadata`));
      } catch (err) {
        if (!(err instanceof FilterError)) throw err;
        metadataError ??= err;
        malformed.push(r.id);
        metadata.push(undefined);
      }
    });
    if (firstMalformed !== undefined) {
      throw new VectorError(
        'parameter_invalid',
        `Embeddings must contain only finite numbers; offending ids: ${listIds(malformed)}.`,
        { param: `rows[${firstMalformed}].embedding`, details: idsDetail(malformed) },
      );
    }
    if (metadataError) {
      throw new VectorError('parameter_invalid', `${metadataError.message}; offending ids: ${listIds(malformed)}.`, {
        param: metadataError.path,
        details: idsDetail(malformed),
      });
    }
    const wrongDim = rows.map((r, i) => [r, i] as const).filter(([r]) => r.embedding.length !== t.dimension);
    if (wrongDim.length > 0) {
      const ids = wrongDim.map(([r]) => r.id);
      throw new VectorError(
        'dimension_mismatch',
        `Table '${t.name}' has dimension ${t.dimension}; embeddings of other lengths: ${listIds(ids)}.`,
        { param: `rows[${wrongDim[0]?.[1]}].embedding`, details: idsDetail(ids) },
      );
    }
    const seen = new Map<string, number>();
    const dupes: string[] = [];
    let firstDupe: number | undefined;
    rows.forEach((r, i) => {
      if (seen.has(r.id)) {
        if (!dupes.includes(r.id)) dupes.push(r.id);
        firstDupe ??= i;
      }
      seen.set(r.id, i);
    });
    if (firstDupe !== undefined) {
      throw new VectorError('parameter_invalid', `Ids appear more than once in the batch: ${listIds(dupes)}.`, {
        param: `rows[${firstDupe}].id`,
        details: idsDetail(dupes),
      });
    }
    return rows.map((r, i) => ({ id: r.id, embedding: r.embedding as number[], metadata: metadata[i] }));
  }

  async insert(name: string, dto: InsertVectorsDto): Promise<InsertedDto> {
    const t = await this.table(name);
    const rows = this.checkRows(t, dto);
    const outcome = await this.repo.insertRows(t.id, rows);
    switch (outcome.kind) {
      case 'table_missing':
        this.live.dropped(name, t.id);
        throw new NotFoundError('table', name, 'table');
      case 'ids_exist':
        throw new VectorError('resource_already_exists', `Ids already exist in table '${name}': ${listIds(outcome.ids)}.`, {
          param: 'rows',
          details: idsDetail(outcome.ids),
        });
      case 'inserted':
        await this.live.applyInsert(
          t,
          outcome.seq,
          rows.map((r, i) => ({ id: r.id, label: outcome.labels[i], embedding: r.embedding, metadata: r.metadata })),
        );
        return { inserted: rows.length };
    }
  }

  async query(name: string, dto: QueryDto): Promise<QueryResponseDto> {
    const t = await this.table(name);
    if (!allFinite(dto.vector)) {
      throw new VectorError('parameter_invalid', 'vector must contain only finite numbers.', { param: 'vector' });
    }
    if (dto.vector.length !== t.dimension) {
      throw new VectorError(
        'dimension_mismatch',
        `vector has ${dto.vector.length} values; table '${t.name}' has dimension ${t.dimension}.`,
        { param: 'vector' },
      );
    }
    let filter: Filter | undefined;
    if (dto.filter !== undefined) {
      try {
        filter = parseFilter(dto.filter);
      } catch (err) {
        if (err instanceof FilterError) throw new VectorError('parameter_invalid', err.message, { param: err.path });
        throw err;
      }
    }
    const started = performance.now();
    const { hits } = t.collection.query(dto.vector, dto.n, filter, dto.index ?? t.indexKind);
    const latency = Math.round(performance.now() - started);
    return { results: hits.map((h) => ({ id: h.id, score: h.score, metadata: h.metadata })), latency_ms: latency };
  }

  async deleteVectors(name: string, dto: DeleteVectorsDto): Promise<DeletedDto> {
    const t = await this.table(name);
    const ids = [...new Set(dto.ids)];
    const outcome = await this.repo.deleteRows(t.id, ids);
    switch (outcome.kind) {
      case 'table_missing':
        this.live.dropped(name, t.id);
        throw new NotFoundError('table', name, 'table');
      case 'none':
        return { deleted: 0, not_found: ids };
      case 'deleted': {
        await this.live.applyDelete(
          t,
          outcome.seq,
          outcome.rows.map((r) => r.label),
        );
        const found = new Set(outcome.rows.map((r) => r.id));
        return { deleted: found.size, not_found: ids.filter((id) => !found.has(id)) };
      }
    }
  }
}
