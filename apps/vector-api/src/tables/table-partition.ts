import { Injectable } from '@nestjs/common';
import { VectorConfig } from '../config';
import { VectorError } from '../errors';
import { type TableDto, toLoadingTableDto, toNotLoadedTableDto, toTableDto } from './dto/table.dto';
import { LiveTables } from './live-tables';
import { formatPartition, ownsTable, type Partition, partitionOf } from './partition';
import { type TableHead, TablesRepository } from './tables.repository';

/**
 * What `VECTOR_PARTITION` changes on the routes (docs/scaling.md): a route of one table is
 * served only by an instance of the table's partition (421 elsewhere, never an answer from
 * an empty memory); creating, listing and deleting tables work on every instance, since the
 * proxy cannot route a create by its body. Unpartitioned, every table is this instance's.
 */
@Injectable()
export class TablePartition {
  private readonly partition: Partition | undefined;

  constructor(
    config: VectorConfig,
    private readonly repo: TablesRepository,
    private readonly live: LiveTables,
  ) {
    this.partition = config.partition;
  }

  /** The partition that holds `name`; this instance's when unpartitioned. */
  private ownerOf(name: string): number {
    return this.partition ? partitionOf(name, this.partition.count) : 1;
  }

  private owns(name: string): boolean {
    return ownsTable(this.partition, name);
  }

  /** 421 `table_not_in_partition` unless this instance's partition holds the table `name`. */
  check(name: string): void {
    const p = this.partition;
    if (!p || this.owns(name)) return;
    throw new VectorError(
      'table_not_in_partition',
      `Table '${name}' belongs to partition ${this.ownerOf(name)}/${p.count}; this instance serves partition ${formatPartition(p)} (VECTOR_PARTITION). Send its requests through the partition proxy.`,
      { param: 'table' },
    );
  }

  /**
   * The answer to a create that committed: the table is registered in memory when this
   * partition holds it; otherwise its owner loads it at its next sync or first request.
   */
  created(head: TableHead): TableDto {
    return this.owns(head.name) ? toTableDto(this.live.created(head)) : toNotLoadedTableDto(head, 0, this.ownerOf(head.name));
  }

  /**
   * A page of the project's tables by name (byte order), after `after`: `limit` of them and
   * whether more follow. Unpartitioned, once every table is loaded: the tables in memory (all
   * of them). Partitioned, or while the tables load after start: the tables of PostgreSQL;
   * those this instance does not hold (another partition's, one of its own not loaded yet
   * (`loading`), or created elsewhere moments ago) with their rows counted in PostgreSQL.
   */
  async list(projectId: string, page: TablePage): Promise<{ data: TableDto[]; has_more: boolean }> {
    const after = (name: string): boolean => page.after === undefined || name > page.after;
    const held = this.live.all(projectId);
    if (!this.partition && this.live.loaded) {
      const names = held.filter((t) => after(t.name)).sort((a, b) => byName(a.name, b.name));
      return { data: names.slice(0, page.limit).map(toTableDto), has_more: names.length > page.limit };
    }
    const heads = await this.repo.tablesPage(projectId, page.after, page.limit + 1);
    const shown = heads.slice(0, page.limit);
    const byTable = new Map(held.map((t) => [t.name, t]));
    const counts = await this.repo.rowCounts(shown.filter((h) => byTable.get(h.name)?.id !== h.id).map((h) => h.id));
    const data = shown.map((h) => {
      const t = byTable.get(h.name);
      if (t?.id === h.id) return toTableDto(t);
      const rows = counts.get(h.id) ?? 0;
      return this.live.waiting(projectId, h.name)
        ? toLoadingTableDto(h, rows)
        : toNotLoadedTableDto(h, rows, this.ownerOf(h.name));
    });
    return { data, has_more: heads.length > page.limit };
  }
}

/** Which tables a list asks for: at most `limit`, named after `after`. */
export interface TablePage {
  readonly limit: number;
  readonly after?: string | undefined;
}

/** Byte order of names (they are ASCII): the order of the cursor, as PostgreSQL's COLLATE "C". */
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
