/**
 * Last activity as upstream defines it — the session's last message time, else its start — whoever wrote that
 * message: Caduceus, a v30 upstream, or an older upstream that never touches `last_activity_at`. Kept per
 * connection in a TEMP table (nothing touches the file), indexed in list order, and brought up to date before
 * every list read: when `PRAGMA data_version` (another connection committed) or `total_changes()` (this one
 * wrote) moved, only messages and sessions added since the last look are read (rowid ranges, a few index
 * steps), so the first page right after another process wrote reflects that write without rescanning.
 * Activity only moves forward: a message deleted later does not move its session back down. On a home without
 * `last_activity_at` a session's first message replaces its start even when dated earlier (upstream's
 * `COALESCE(MAX(timestamp), started_at)`); `msg` records that one was seen.
 *
 * The check is one statement when nothing moved, and a catch-up after a single foreign append is three more
 * (new sessions, new messages, one bump): its cost is O(rows added), never O(home). The store's watcher runs that
 * catch-up as soon as it sees a commit (`advanceActivity`), so a list request after it finds the index current
 * and pays the check alone; a request that arrives first still catches up itself.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { existingColumns } from './reconcile'

interface State {
  /** data_version and total_changes() when the table was last made current */
  dataVersion: number
  changes: number
  /** `last_activity_at` when the home has it (read once per build, not per refresh) */
  own: string
  maxMessage: number
  maxSession: number
}
const states = new WeakMap<Database.Database, State>()

const VERSION = 'SELECT data_version, total_changes() FROM pragma_data_version'
const version = (db: Database.Database) => stmt(db, VERSION).raw().get() as [number, number]

function build(db: Database.Database): State {
  const own = existingColumns(db, 'sessions').has('last_activity_at') ? 's.last_activity_at' : 'NULL'
  db.exec(`DROP TABLE IF EXISTS temp.cad_activity;
    CREATE TEMP TABLE cad_activity (id TEXT PRIMARY KEY, act REAL NOT NULL, started REAL NOT NULL, msg INTEGER NOT NULL);
    CREATE INDEX temp.cad_activity_order ON cad_activity(act DESC, started DESC, id DESC);`)
  const act =
    own === 'NULL'
      ? 'COALESCE(m.mx, s.started_at, 0), m.mx IS NOT NULL'
      : `MAX(COALESCE(${own}, s.started_at, 0), COALESCE(m.mx, s.started_at, 0)), 1`
  db.prepare(
    `INSERT INTO temp.cad_activity (id, act, msg, started)
      SELECT s.id, ${act}, COALESCE(s.started_at, 0)
      FROM main.sessions s LEFT JOIN (SELECT session_id, MAX(timestamp) AS mx FROM main.messages GROUP BY session_id) m
        ON m.session_id = s.id`
  ).run()
  return {
    dataVersion: -1,
    changes: -1,
    own: own === 'NULL' ? 'NULL' : 'last_activity_at',
    maxMessage: Number(db.prepare('SELECT COALESCE(MAX(id), 0) FROM main.messages').pluck().get()),
    maxSession: Number(db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM main.sessions').pluck().get())
  }
}

/** Brings `st` up to date; returns how many TEMP rows it changed (they count in total_changes()). */
function catchUp(db: Database.Database, st: State): number {
  let changed = 0
  const own = st.own
  const fresh = stmt(
    db,
    `SELECT rowid, id, MAX(COALESCE(${own}, started_at, 0), COALESCE(started_at, 0)), COALESCE(started_at, 0)
      FROM main.sessions WHERE rowid > ?`
  )
    .raw()
    .all(st.maxSession) as Array<[number, string, number, number]>
  if (fresh.length) {
    const put = stmt(
      db,
      `INSERT INTO temp.cad_activity (id, act, started, msg) VALUES (?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET act = MAX(act, excluded.act), started = excluded.started`
    )
    const msg = own === 'NULL' ? 0 : 1
    for (const [r, id, act, started] of fresh) {
      changed += put.run(id, act, started, msg).changes
      if (r > st.maxSession) st.maxSession = r
    }
  }
  // Rows, not GROUP BY: grouping would tempt the planner onto the session index (a walk of every message).
  const recent = stmt(db, 'SELECT session_id, timestamp, id FROM main.messages WHERE id > ?')
    .raw()
    .all(st.maxMessage) as Array<[string, number, number]>
  if (!recent.length) return changed
  const latest = new Map<string, number>()
  for (const [id, ts, r] of recent) {
    if (Number.isFinite(ts) && ts > (latest.get(id) ?? -Infinity)) latest.set(id, ts)
    if (r > st.maxMessage) st.maxMessage = r
  }
  const bump = stmt(
    db,
    'UPDATE temp.cad_activity SET act = CASE WHEN msg THEN MAX(act, ?) ELSE ? END, msg = 1 WHERE id = ?'
  )
  for (const [id, ts] of latest) changed += bump.run(ts, ts, id).changes
  return changed
}

/** Makes `temp.cad_activity` current for `db`; call before reading it. */
export function refreshActivity(db: Database.Database): void {
  let st = states.get(db)
  const [dataVersion, changes] = version(db)
  if (st && st.dataVersion === dataVersion && st.changes === changes) return
  if (st) {
    try {
      // Our own writes to the TEMP table move total_changes() too: count them in, so the next check is quiet.
      const own = catchUp(db, st)
      st.dataVersion = dataVersion
      st.changes = changes + own
      return
    } catch (err) {
      // Only a lost TEMP table means start over; anything else (a foreign lock: SQLITE_BUSY) is the caller's to
      // retry, with this state kept as it was.
      if (!/no such table/i.test((err as Error).message)) throw err
    }
  }
  states.delete(db) // a build that fails half way (the table dropped, not refilled) must not look current
  st = build(db)
  ;[st.dataVersion, st.changes] = version(db)
  states.set(db, st)
}

/**
 * The watcher's path (watcher.ts, on every commit it sees): catches `db`'s index up now, off the request path.
 * Only an index a list already built is advanced — a home nobody listed is never scanned from here — and never
 * inside an open transaction on `db`.
 */
export function advanceActivity(db: Database.Database): void {
  if (states.has(db) && !db.inTransaction) refreshActivity(db)
}
