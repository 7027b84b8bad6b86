import type { Client, Pool } from 'pg';

/** The part of Prisma's runtime data model the drift check reads. */
export interface RuntimeDataModel {
  models: Record<string, { dbName: string | null; fields: Array<{ name: string; kind: string; dbName?: string | null }> }>;
  enums: Record<string, { dbName?: string | null; values: Array<{ name: string; dbName?: string | null }> }>;
}

export interface SchemaDrift {
  missingTables: string[];
  missingColumns: string[];
  extraColumns: string[];
  missingEnumValues: string[];
}

/**
 * The data model compiled into the generated Prisma client. Prisma keeps it on the client
 * instance; there is no public accessor in Prisma 7's `prisma-client` generator.
 */
export function clientDataModel(client: object): RuntimeDataModel {
  const model = (client as { _runtimeDataModel?: unknown })._runtimeDataModel;
  if (typeof model !== 'object' || model === null || !('models' in model)) {
    throw new Error('The generated Prisma client exposes no runtime data model; was it generated?');
  }
  return model as RuntimeDataModel;
}

/**
 * Compares the migrated database with the client's data model: every model's table, every
 * scalar field's column and every enum value must exist; columns the model does not know
 * are reported too. An empty result means the migrations and schema.prisma agree.
 */
export async function findSchemaDrift(db: Pick<Client | Pool, 'query'>, model: RuntimeDataModel): Promise<SchemaDrift> {
  const { rows } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
  );
  const columns = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!columns.has(r.table_name)) columns.set(r.table_name, new Set());
    columns.get(r.table_name)?.add(r.column_name);
  }
  const enumRows = await db.query<{ type_name: string; label: string }>(
    `SELECT t.typname AS type_name, e.enumlabel AS label FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
     JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = current_schema()`,
  );
  const enumLabels = new Set(enumRows.rows.map((r) => `${r.type_name}.${r.label}`));

  const drift: SchemaDrift = { missingTables: [], missingColumns: [], extraColumns: [], missingEnumValues: [] };
  for (const [name, m] of Object.entries(model.models)) {
    const table = m.dbName ?? name;
    const existing = columns.get(table);
    if (!existing) {
      drift.missingTables.push(table);
      continue;
    }
    const expected = new Set(m.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum').map((f) => f.dbName ?? f.name));
    for (const column of expected) if (!existing.has(column)) drift.missingColumns.push(`${table}.${column}`);
    for (const column of existing) if (!expected.has(column)) drift.extraColumns.push(`${table}.${column}`);
  }
  for (const [name, e] of Object.entries(model.enums)) {
    const type = e.dbName ?? name;
    for (const v of e.values) {
      const label = `${type}.${v.dbName ?? v.name}`;
      if (!enumLabels.has(label)) drift.missingEnumValues.push(label);
    }
  }
  return drift;
}
