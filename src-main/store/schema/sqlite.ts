/**
 * SQLite's own catalogs, as the store reads them to learn a home's shape (never written, never created): declared
 * like the tables so the rows read from them are typed from one definition. Not in DECLARED_TABLES.
 * - `sqlite_master`: every table, view, index and trigger with its CREATE text (NULL for automatic indexes).
 * - `pragma_table_info`: one row per column of a table (`PRAGMA table_info(t)` yields the same rows).
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const sqliteMaster = sqliteTable('sqlite_master', {
  type: text('type').notNull(),
  name: text('name').notNull(),
  tbl_name: text('tbl_name').notNull(),
  rootpage: integer('rootpage'),
  sql: text('sql')
})

export const pragmaTableInfo = sqliteTable('pragma_table_info', {
  cid: integer('cid').notNull(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  notnull: integer('notnull').notNull(),
  dflt_value: text('dflt_value'),
  pk: integer('pk').notNull()
})
