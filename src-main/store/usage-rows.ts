/**
 * A session's usage rows outside `sessions`. session_daily_usage has no foreign key, and upstream's own
 * delete/prune knows nothing of it (nor of the cad_ stand-ins of older homes), so a session it removed leaves them
 * behind: they go with a delete here, and go before a session row is (re)created under that id, so a new
 * session never inherits an old one's usage.
 */
import type Database from 'better-sqlite3'
import { hasTable, stmt } from './stmt-cache'

const TABLES = ['session_model_usage', 'session_daily_usage', 'cad_session_model_usage', 'cad_session_daily_usage']

export function dropUsageRows(db: Database.Database, ids: readonly string[]): void {
  const have = TABLES.filter((t) => hasTable(db, t))
  for (const id of ids) for (const t of have) stmt(db, `DELETE FROM main.${t} WHERE session_id = ?`).run(id)
}
