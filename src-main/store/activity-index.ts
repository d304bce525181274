/**
 * Last activity as upstream defines it — the session's last message time, else its start — whoever wrote that
 * message: Caduceus, a v30 upstream, or an older upstream that never touches `last_activity_at`. Kept per
 * connection in a TEMP table (nothing touches the file), indexed in list order, and brought up to date before
 * every list read: when `PRAGMA data_version` (another connection committed) or `total_changes()` (this one
 * wrote) moved, only messages and sessions added since the last look are read (rowid ranges, a few index
 * steps), so the first page right after another process wrote reflects that write without rescanning.
 * Activity only moves forward: a message deleted later does not move its session back down.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { existingColumns } from './reconcile'

interface State {
  version: string
  /** `last_activity_at` when the home has it (read once per build, not per refresh) */
  own: string
  maxMessage: number
  maxSession: number
}
const states = new WeakMap<Database.Database, State>()

const version = (db: Database.Database) =>
  `${String(stmt(db, 'PRAGMA data_version').pluck().get())}:${String(stmt(db, 'SELECT total_changes()').pluck().get())}`

function build(db: Database.Database): State {
  const own = existingColumns(db, 'sessions').has('last_activity_at') ? 's.last_activity_at' : 'NULL'
  db.exec(`DROP TABLE IF EXISTS temp.cad_activity;
    CREATE TEMP TABLE cad_activity (id TEXT PRIMARY KEY, act REAL NOT NULL, started REAL NOT NULL);
    CREATE INDEX temp.cad_activity_order ON cad_activity(act DESC, started DESC, id DESC);`)
  db.prepare(
    `INSERT INTO temp.cad_activity (id, act, started)
      SELECT s.id, MAX(COALESCE(${own}, s.started_at, 0), COALESCE(m.mx, s.started_at, 0)), COALESCE(s.started_at, 0)
      FROM main.sessions s LEFT JOIN (SELECT session_id, MAX(timestamp) AS mx FROM main.messages GROUP BY session_id) m
        ON m.session_id = s.id`
  ).run()
  return {
    version: '',
    own: own === 'NULL' ? 'NULL' : 'last_activity_at',
    maxMessage: Number(db.prepare('SELECT COALESCE(MAX(id), 0) FROM main.messages').pluck().get()),
    maxSession: Number(db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM main.sessions').pluck().get())
  }
}

function catchUp(db: Database.Database, st: State): void {
  const own = st.own
  const fresh = stmt(
    db,
    `SELECT rowid AS r, id, MAX(COALESCE(${own}, started_at, 0), COALESCE(started_at, 0)) AS act, COALESCE(started_at, 0) AS started
      FROM main.sessions WHERE rowid > ?`
  ).all(st.maxSession) as Array<{ r: number; id: string; act: number; started: number }>
  const put = stmt(
    db,
    `INSERT INTO temp.cad_activity (id, act, started) VALUES (?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET act = MAX(act, excluded.act), started = excluded.started`
  )
  for (const s of fresh) {
    put.run(s.id, s.act, s.started)
    st.maxSession = Math.max(st.maxSession, s.r)
  }
  // Rows, not GROUP BY: grouping would tempt the planner onto the session index (a walk of every message).
  const recent = stmt(db, 'SELECT session_id AS id, timestamp AS ts, id AS r FROM main.messages WHERE id > ?')
    .raw()
    .all(st.maxMessage) as Array<[string, number, number]>
  const latest = new Map<string, number>()
  for (const [id, ts, r] of recent) {
    if (Number.isFinite(ts) && ts > (latest.get(id) ?? -Infinity)) latest.set(id, ts)
    st.maxMessage = Math.max(st.maxMessage, r)
  }
  const bump = stmt(db, 'UPDATE temp.cad_activity SET act = MAX(act, ?) WHERE id = ?')
  for (const [id, ts] of latest) bump.run(ts, id)
}

/** Makes `temp.cad_activity` current for `db`; call before reading it. */
export function refreshActivity(db: Database.Database): void {
  let st = states.get(db)
  const v = version(db)
  if (st && st.version === v) return
  const exists = stmt(db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'cad_activity'").get() !== undefined
  if (!st || !exists) st = build(db)
  else catchUp(db, st)
  st.version = version(db)
  states.set(db, st)
}
