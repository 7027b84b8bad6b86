import { NotFoundError, type TransactionOptions, TransactionRunner } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { type Filter, FilterError, type Metadata, parseFilter, parseMetadata } from '../engine/filter';
import { FilterLimitError } from '../engine/filter-limits';
import { type CreateTableDto, type TableDeletedDto, type TableDto, type TableListDto, toTableDto } from './dto/table.dto';
import {
  type DeletedDto,
  type DeleteVectorsDto,
  type InsertedDto,
  type InsertVectorsDto,
  type QueryDto,
  type QueryResponseDto,
  toQueryResponse,
} from './dto/vectors.dto';
import { type LiveTable, LiveTables } from './live-tables';
import { TablePartition } from './table-partition';
import { type NewRow, TablesRepository } from './tables.repository';
import { VectorError } from '../errors';

/**
 * Writes of a table: a batch of 1000 rows × 4096 dimensions (≈ 16 MB of embeddings) can take
 * seconds, and deleting a large table cascades to all its rows; Prisma's 5 s default would
 * abort them.
 */
const WRITE_TX: TransactionOptions<unknown> = { timeoutMs: 60_000, maxWaitMs: 10_000 };

/** Thrown inside a transaction to roll it back when it turns out to change nothing. */
class NothingToCommit extends Error {
  constructor() {
    super('nothing to commit');
  }
}

/** The transaction's result, or undefined when it threw NothingToCommit (and so rolled back). */
async function unlessNothingToCommit<T>(transaction: Promise<T>): Promise<T | undefined> {
  try {
    return await transaction;
  } catch (err) {
    if (err instanceof NothingToCommit) return undefined;
    throw err;
  }
}

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
    private readonly transactions: TransactionRunner,
    private readonly partition: TablePartition,
  ) {}

  private async table(name: string): Promise<LiveTable> {
    this.partition.check(name);
    const t = await this.live.resolve(name);
    if (!t) throw new NotFoundError('table', name, 'table');
    return t;
  }

  /** The table was deleted (by another instance) after we resolved it: forget it, answer 404. */
  private gone(t: LiveTable): NotFoundError {
    this.live.dropped(t.name, t.id);
    return new NotFoundError('table', t.name, 'table');
  }

  async create(dto: CreateTableDto): Promise<TableDto> {
    const head = await this.transactions.run(
      (tx) => this.repo.createTable(tx, dto.name, dto.dimension, dto.index ?? 'flat'),
      WRITE_TX,
    );
    if (!head) throw new VectorError('resource_already_exists', `A table named '${dto.name}' already exists.`, { param: 'name' });
    return this.partition.created(head);
  }

  async list(): Promise<TableListDto> {
    return { data: await this.partition.list() };
  }

  async get(name: string): Promise<TableDto> {
    return toTableDto(await this.table(name));
  }

  async drop(name: string): Promise<TableDeletedDto> {
    const deleted = await this.transactions.run((tx) => this.repo.deleteTable(tx, name), WRITE_TX);
    if (!deleted) throw new NotFoundError('table', name, 'table');
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

  /**
   * All or nothing, acknowledged after commit. Taking the change seq first locks the table's
   * row, so concurrent writers of one table serialise and see each other's ids.
   */
  async insert(name: string, dto: InsertVectorsDto): Promise<InsertedDto> {
    const t = await this.table(name);
    const rows = this.checkRows(t, dto);
    const change = await this.transactions.run(async (tx) => {
      const change = await this.repo.nextChange(tx, t.id, rows.length);
      if (!change) return null;
      const existing = await this.repo.existingIds(
        tx,
        t.id,
        rows.map((r) => r.id),
      );
      if (existing.length > 0) {
        throw new VectorError('resource_already_exists', `Ids already exist in table '${name}': ${listIds(existing)}.`, {
          param: 'rows',
          details: idsDetail(existing),
        });
      }
      await this.repo.createRows(tx, t.id, rows, change.labels);
      await this.repo.recordChange(tx, t.id, change.seq, 'insert', change.labels);
      return change;
    }, WRITE_TX);
    if (!change) throw this.gone(t);
    await this.live.applyInsert(
      t,
      change.seq,
      rows.map((r, i) => ({ id: r.id, label: change.labels[i], embedding: r.embedding, metadata: r.metadata })),
    );
    return { inserted: rows.length };
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
        if (err instanceof FilterLimitError) throw new VectorError('filter_too_complex', err.message, { param: err.path });
        if (err instanceof FilterError) throw new VectorError('parameter_invalid', err.message, { param: err.path });
        throw err;
      }
    }
    const started = performance.now();
    // Sliced: a costly query (a large table, a broad filter) lets other requests run between its slices.
    const { hits } = await t.collection.querySliced(dto.vector, dto.n, filter, dto.index ?? t.indexKind);
    return toQueryResponse(hits, Math.round(performance.now() - started));
  }

  /** Deletes the rows with these ids that exist (one change); unknown ids are reported, not an error. */
  async deleteVectors(name: string, dto: DeleteVectorsDto): Promise<DeletedDto> {
    const t = await this.table(name);
    const ids = [...new Set(dto.ids)];
    const deleted = await unlessNothingToCommit(
      this.transactions.run(async (tx) => {
        const change = await this.repo.nextChange(tx, t.id, 0);
        if (!change) return null;
        const rows = await this.repo.rowLabels(tx, t.id, ids);
        // The seq taken must not stay without its change: other instances would see a gap.
        if (rows.length === 0) throw new NothingToCommit();
        const labels = rows.map((r) => r.label);
        await this.repo.deleteRows(
          tx,
          t.id,
          rows.map((r) => r.id),
        );
        await this.repo.freeLabels(tx, t.id, labels);
        await this.repo.recordChange(tx, t.id, change.seq, 'delete', labels);
        return { seq: change.seq, ids: rows.map((r) => r.id), labels };
      }, WRITE_TX),
    );
    if (deleted === null) throw this.gone(t);
    if (deleted === undefined) return { deleted: 0, not_found: ids };
    await this.live.applyDelete(t, deleted.seq, deleted.labels);
    const found = new Set(deleted.ids);
    return { deleted: found.size, not_found: ids.filter((id) => !found.has(id)) };
  }
}
