/**
 * DDL generated from the drizzle table definitions, so the declared schema has one source of truth.
 * `createTableSql` mirrors upstream SCHEMA_SQL; `addColumnSql` is what reconcile issues for a column an
 * older DB lacks, within SQLite's ALTER TABLE ADD COLUMN limits.
 */
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is, SQL } from 'drizzle-orm'

// Plain identifiers stay unquoted so sqlite_master reads like upstream's SCHEMA_SQL.
const q = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`)

function literal(value: unknown): string | null {
  if (value === null) return 'NULL'
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean') return value ? '1' : '0'
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`
  return null // SQL expressions and anything else: not a constant
}

interface ColumnFacts {
  name: string
  type: string
  notNull: boolean
  primary: boolean
  autoIncrement: boolean
  /** Constant default as SQL text, or null. */
  defaultSql: string | null
  references: { table: string; column: string; onDelete?: string } | null
}

export function columnFacts(table: SQLiteTable): ColumnFacts[] {
  const cfg = getTableConfig(table)
  const refs = new Map<string, ColumnFacts['references']>()
  for (const fk of cfg.foreignKeys) {
    const ref = fk.reference()
    if (ref.columns.length !== 1) continue
    refs.set(ref.columns[0].name, {
      table: getTableConfig(ref.foreignTable).name,
      column: ref.foreignColumns[0].name,
      onDelete: fk.onDelete
    })
  }
  return cfg.columns.map((c: SQLiteColumn) => ({
    name: c.name,
    type: c.getSQLType().toUpperCase(),
    notNull: c.notNull,
    primary: c.primary,
    autoIncrement: Boolean((c as unknown as { autoIncrement?: boolean }).autoIncrement),
    defaultSql: c.hasDefault && !is(c.default, SQL) ? literal(c.default) : null,
    references: refs.get(c.name) ?? null
  }))
}

function refSql(r: NonNullable<ColumnFacts['references']>): string {
  return ` REFERENCES ${r.table}(${r.column})${r.onDelete && r.onDelete !== 'no action' ? ` ON DELETE ${r.onDelete.toUpperCase()}` : ''}`
}

export function createTableSql(table: SQLiteTable): string {
  const cfg = getTableConfig(table)
  const cols = columnFacts(table).map((c) => {
    let s = `${c.name} ${c.type}`
    if (c.primary) s += c.autoIncrement ? ' PRIMARY KEY AUTOINCREMENT' : ' PRIMARY KEY'
    else if (c.notNull) s += ' NOT NULL'
    if (c.defaultSql !== null) s += ` DEFAULT ${c.defaultSql}`
    if (c.references) s += refSql(c.references)
    return s
  })
  for (const pk of cfg.primaryKeys) cols.push(`PRIMARY KEY (${pk.columns.map((c) => c.name).join(', ')})`)
  return `CREATE TABLE IF NOT EXISTS ${q(cfg.name)} (\n  ${cols.join(',\n  ')}\n)`
}

/**
 * SQLite refuses ADD COLUMN for PRIMARY KEY/UNIQUE, for NOT NULL without a default and for non-constant
 * defaults; like upstream we then add the column nullable (e.g. origin_session_id is ALTER-added as TEXT).
 * A REFERENCES clause is only allowed with a NULL default, which is the only way we declare them.
 */
export function addColumnSql(tableName: string, c: ColumnFacts): string {
  let s = `ALTER TABLE ${q(tableName)} ADD COLUMN ${c.name} ${c.type}`
  if (c.notNull && c.defaultSql !== null && c.defaultSql !== 'NULL' && !c.primary)
    s += ` NOT NULL DEFAULT ${c.defaultSql}`
  else if (c.defaultSql !== null && !c.primary) s += ` DEFAULT ${c.defaultSql}`
  if (c.references && (c.defaultSql === null || c.defaultSql === 'NULL')) s += refSql(c.references)
  return s
}
