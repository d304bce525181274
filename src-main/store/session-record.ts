/**
 * A `sessions` row read into its camelCase `SessionRecord`: the field list comes from the table definition
 * (`schema/sessions.ts`), so a column added there is read everywhere without another declaration. A column
 * the row lacks (a write transaction in an older home, where the read shim's views are dropped) reads as its
 * declared constant default, or null; undeclared extra columns are left out.
 */
import { getTableColumns, is, SQL } from 'drizzle-orm'
import { sessions } from './schema'
import type { SessionRecord } from './types'
import { camelKey } from './util'

const FIELDS: Array<[column: string, field: string, fallback: unknown]> = Object.entries(getTableColumns(sessions)).map(
  ([column, c]) => [column, camelKey(column), c.hasDefault && !is(c.default, SQL) ? c.default : null]
)

export function toSessionRecord(row: unknown): SessionRecord | null {
  if (!row || typeof row !== 'object') return null
  const src = row as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [column, field, fallback] of FIELDS) out[field] = column in src ? src[column] : fallback
  return out as SessionRecord
}
