/**
 * Last activity as upstream defines it — the session's last message time, else its start — whoever wrote that
 * message: Caduceus, a v30 upstream, or an older upstream that never touches `last_activity_at`. Kept per
 * connection in an attached in-memory database (nothing touches the file), indexed in list order, and brought up to date before
 * every list read: when `PRAGMA data_version` (another connection committed) or `total_changes()` (this one
 * wrote) moved, only messages and sessions added since the last look are read (rowid ranges, a few index
 * steps), so the first page right after another process wrote reflects that write without rescanning.
 * A session with new messages is read again from its own messages, so a transcript rewritten in place (upstream's
 * replace_messages behind /undo and /retry, which writes the kept rows back with their own times) moves back down;
 * messages deleted anywhere (clear_messages, a rewrite, a session deleted) leave no trace in rowids unless they took
 * the newest, so the home's FTS5 index of messages (every upstream and Caduceus home has one, kept by triggers on
 * every write) says it: it counts its rows in one record, and a count that grew by less than the rows added means
 * rows went; every session is then read again (one statement). That holds only where the count matched the messages
 * when the index was built (an index missing rows would read every append as a delete); elsewhere, when the newest
 * messages are gone, the sessions at the top of the list are read again. Next to it the index
 * keeps where an untitled session's first user message is (`first_user`, as a list page found it:
 * notePreviewSources), so the page re-reads that one row after a foreign commit rather than the session's messages.
 * On a home without `last_activity_at` a session's first message replaces its start even when dated earlier
 * (upstream's `COALESCE(MAX(timestamp), started_at)`); `msg` records that one was seen.
 *
 * The check is one statement when nothing moved, and a catch-up after a single foreign append is three more
 * (new sessions, new messages, one bump): its cost is O(rows added), never O(home). The store's watcher runs that
 * catch-up as soon as it sees a commit (`advanceActivity`), so a list request after it finds the index current
 * and pays the check alone; a request that arrives first still catches up itself.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { existingColumns } from './reconcile'
import { ftsVarints } from './fts-nul'
import { errorMessage } from '@shared/contract/errors'

interface State {
  /** The index table, schema-qualified (ACTIVITY_DB's, or TEMP's where that could not be attached) */
  table: string
  /** data_version and total_changes() when the table was last made current */
  dataVersion: number
  changes: number
  /** `last_activity_at` when the home has it (read once per build, not per refresh) */
  own: string
  maxMessage: number
  /** The newest session row seen (rowid and id): new rows come after it while it is still there */
  maxSession: number
  tailId: string | null
  /** The messages FTS index's row-count statement (ftsCountSql), or null on a home without one; its last count */
  ftsCount: string | null
  ftsRows: number
  /** Moves whenever rows may have gone (a delete seen, a re-read of every session, a rebuild): list-kept.ts */
  epoch: number
}
const states = new WeakMap<Database.Database, State>()
/** Epochs handed out in this process: every move takes a new number, never one another index had. */
let epochs = 0

const VERSION = 'SELECT data_version, total_changes() FROM pragma_data_version'
const version = (db: Database.Database) => stmt<[number, number]>(db, VERSION).raw().get()!

/**
 * The index's own in-memory database, attached to the store's connection. Not TEMP: SQLite never writes a TEMP
 * database's pages out, so they all stay on its dirty list and every commit that touches TEMP walks that list —
 * the catch-up's one-row bump cost ~50 µs per 10k sessions. An in-memory database's commit cleans only the pages it
 * changed. (`temp_store = MEMORY` would do the same for TEMP, but it also keeps every sort in memory: a search or
 * export over a large home could then never spill.) TEMP remains the fallback where ATTACH is refused (a read-only
 * connection, an open transaction).
 */
export const ACTIVITY_DB = 'cad_mem'

function attach(db: Database.Database): string {
  // ATTACH is refused inside a transaction, and a read-only connection attaches its databases read-only.
  if (db.readonly || db.inTransaction) return 'temp'
  if (!db.prepare('SELECT 1 FROM pragma_database_list WHERE name = ?').get(ACTIVITY_DB))
    db.exec(`ATTACH ':memory:' AS ${ACTIVITY_DB}`)
  return ACTIVITY_DB
}

/**
 * A session's activity and whether a message counted in it, from its own column (`own`, or 'NULL' on a home without
 * `last_activity_at`) and its latest message time (`mx`): upstream's rule where it has no column of its own.
 */
/** How many sessions from the top are read again when the newest messages were deleted (what a first page shows). */
const REREAD_TOP = 100
/** A session's latest message time, one step down the (session_id, timestamp) index. */
const MAX_MESSAGE_TIME = '(SELECT MAX(m.timestamp) FROM main.messages m WHERE m.session_id = s.id)'

/**
 * FTS5 keeps a table's row count as the first varint of its "averages" record (id 1 of `<table>_data`), updated in
 * the same transaction as the row: O(1), where count(*) over messages walks an index (~50 ms at 500k rows). The same
 * record in every SQLite version that writes FTS5 (3.40's and 3.53's agree on it).
 */
function ftsCountSql(db: Database.Database): string | null {
  const name = ['messages_fts', 'messages_fts_trigram'].find((n) =>
    db.prepare('SELECT 1 FROM main.sqlite_master WHERE type = ? AND name = ?').get('table', `${n}_data`)
  )
  return name ? `SELECT block FROM main.${name}_data WHERE id = 1` : null
}

/** The row count an averages record holds: its first varint (none yet before the first row). */
const ftsRowCount = (block: unknown): number => (Buffer.isBuffer(block) ? (ftsVarints(block)[0] ?? 0) : 0)

/**
 * Runs a pass over every session or message (the build, a re-read of every session) with a small page cache. SQLite's
 * page-cache hash grows with the most pages the connection ever held and never shrinks, and every commit by another
 * program empties the cache by walking that hash whole: after one pass through the 64 MB the store allows (open.ts),
 * ~16k buckets were walked at every list read that followed a foreign write (~40 µs of a ~0.5 ms page). A single
 * pass gains nothing from a large cache; the connection's own setting is restored after it.
 */
const PASS_CACHE_KIB = 1024
function withSmallCache<T>(db: Database.Database, pass: () => T): T {
  const size = Number(db.pragma('cache_size', { simple: true }))
  if (size < 0 ? -size <= PASS_CACHE_KIB : size <= PASS_CACHE_KIB / 4) return pass()
  db.pragma(`cache_size = -${PASS_CACHE_KIB}`)
  try {
    return pass()
  } finally {
    db.pragma(`cache_size = ${size}`)
  }
}

const activitySql = (own: string, mx: string) =>
  own === 'NULL'
    ? `COALESCE(${mx}, s.started_at, 0), ${mx} IS NOT NULL`
    : `MAX(COALESCE(${own}, s.started_at, 0), COALESCE(${mx}, s.started_at, 0)), 1`

function build(db: Database.Database): State {
  const own = existingColumns(db, 'sessions').has('last_activity_at') ? 's.last_activity_at' : 'NULL'
  const schema = attach(db)
  const table = `${schema}.cad_activity`
  // `built_n`: the session's messages when the index was built, for the FTS check below only (not kept after).
  db.exec(`DROP TABLE IF EXISTS ${table};
    CREATE TABLE ${table} (id TEXT PRIMARY KEY, act REAL NOT NULL, started REAL NOT NULL, msg INTEGER NOT NULL,
      first_user INTEGER, first_ts REAL, built_n INTEGER);
    CREATE INDEX ${schema}.cad_activity_order ON cad_activity(act DESC, started DESC, id DESC);`)
  const ftsCount = ftsCountSql(db)
  // One read snapshot for the rows, the newest message and session and the FTS count: a foreign write in between
  // would otherwise be neither in the index nor after where the catch-up starts.
  const fill = () => {
    db.prepare(
      `INSERT INTO ${table} (id, act, msg, started, built_n)
        SELECT s.id, ${activitySql(own, 'm.mx')}, COALESCE(s.started_at, 0), COALESCE(m.n, 0)
        FROM main.sessions s LEFT JOIN (SELECT session_id, MAX(timestamp) AS mx, COUNT(*) AS n FROM main.messages
          GROUP BY session_id) m ON m.session_id = s.id`
    ).run()
    const [top, block] = db
      .prepare<unknown[], [number, unknown]>(
        `SELECT COALESCE(MAX(id), 0), ${ftsCount ? `(${ftsCount})` : 'NULL'} FROM main.messages`
      )
      .raw()
      .get()!
    const messages = Number(db.prepare(`SELECT TOTAL(built_n) FROM ${table}`).pluck().get())
    const tail = db
      .prepare<unknown[], [number, string]>('SELECT rowid, id FROM main.sessions ORDER BY rowid DESC LIMIT 1')
      .raw()
      .get()
    return { top: Number(top), ftsRows: ftsRowCount(block), messages, tail }
  }
  const { top, ftsRows, messages, tail } = withSmallCache(db, () =>
    db.inTransaction ? fill() : db.transaction(fill)()
  )
  const st: State = {
    table,
    dataVersion: -1,
    changes: -1,
    own: own === 'NULL' ? 'NULL' : 'last_activity_at',
    maxMessage: top,
    maxSession: tail ? tail[0] : 0,
    tailId: tail ? tail[1] : null,
    // The count says a delete only where the FTS index holds every message (its triggers index each row): not a
    // filtered index, not one missing rows or triggers, not one mid-rebuild, not a home with orphan messages.
    ftsCount: ftsCount && ftsRows === messages ? ftsCount : null,
    ftsRows,
    epoch: ++epochs
  }
  return st
}

const ownColumn = (st: State) => (st.own === 'NULL' ? 'NULL' : 's.last_activity_at')

/** Reads session `@id` again from its row and its messages: its activity, and whether a message counted in it. */
const rereadSql = (st: State) =>
  `UPDATE ${st.table} SET (act, msg) = (SELECT ${activitySql(ownColumn(st), MAX_MESSAGE_TIME)}
    FROM main.sessions s WHERE s.id = @id) WHERE id = @id AND EXISTS (SELECT 1 FROM main.sessions WHERE id = @id)`

function setTail(db: Database.Database, st: State): void {
  const tail = stmt<[number, string]>(db, 'SELECT rowid, id FROM main.sessions ORDER BY rowid DESC LIMIT 1').raw().get()
  st.maxSession = tail ? tail[0] : 0
  st.tailId = tail ? tail[1] : null
}

/**
 * Sessions have no AUTOINCREMENT: once the newest rows are deleted, a new session takes max(rowid) + 1 — a rowid
 * the catch-up already passed. So when the newest row seen is gone (or is another session now), every session the
 * index lacks is read in, with its messages' latest time. Rare (the newest session deleted): one pass over sessions.
 */
function sweep(db: Database.Database, st: State): number {
  st.epoch = ++epochs
  const changed = stmt(
    db,
    `INSERT INTO ${st.table} (id, act, msg, started)
      SELECT s.id, ${activitySql(ownColumn(st), MAX_MESSAGE_TIME)},
        COALESCE(s.started_at, 0)
      FROM main.sessions s WHERE NOT EXISTS (SELECT 1 FROM ${st.table} a WHERE a.id = s.id)`
  ).run().changes
  setTail(db, st)
  return changed
}

/** Reads every session's activity again from its row and messages, and drops the sessions that are gone. */
function rereadAll(db: Database.Database, st: State): number {
  st.epoch = ++epochs
  return withSmallCache(db, () => {
    const gone = stmt(db, `DELETE FROM ${st.table} WHERE id NOT IN (SELECT id FROM main.sessions)`).run().changes
    return (
      gone +
      stmt(
        db,
        `UPDATE ${st.table} AS a SET (act, msg) = (SELECT ${activitySql(ownColumn(st), MAX_MESSAGE_TIME)}
        FROM main.sessions s WHERE s.id = a.id)`
      ).run().changes
    )
  })
}

/** Brings `st` up to date; returns how many index rows it changed (they count in total_changes()). */
function catchUp(db: Database.Database, st: State): number {
  let changed = 0
  const own = st.own
  const fresh = stmt<[number, string, number, number]>(
    db,
    `SELECT rowid, id, MAX(COALESCE(${own}, started_at, 0), COALESCE(started_at, 0)), COALESCE(started_at, 0)
      FROM main.sessions WHERE rowid >= ? + 0`
  )
    .raw()
    .all(st.maxSession)
  const tailKept = st.tailId === null || (fresh[0]?.[0] === st.maxSession && fresh[0][1] === st.tailId)
  if (!tailKept) changed += sweep(db, st)
  else if (st.tailId !== null) fresh.shift() // the tail itself: already indexed
  if (tailKept && fresh.length) {
    const put = stmt(
      db,
      `INSERT INTO ${st.table} (id, act, started, msg) VALUES (?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET act = MAX(act, excluded.act), started = excluded.started`
    )
    const msg = st.own === 'NULL' ? 0 : 1
    for (const [r, id, act, started] of fresh) {
      changed += put.run(id, act, started, msg).changes
      if (r > st.maxSession) [st.maxSession, st.tailId] = [r, id]
    }
  }
  // Rows, not GROUP BY: grouping would tempt the planner onto the session index (a walk of every message).
  // `? + 0`, not `?`: with STAT4 the planner peeks at a bare bound value, and every new value then costs a full
  // re-prepare of the statement.
  // AUTOINCREMENT ids are never reused: a maximum below the last one seen means the newest messages were deleted.
  // The newest id and the FTS row count come from one statement, one snapshot: rows added after it are read next time.
  const [top, block] = stmt<[number, unknown]>(
    db,
    `SELECT COALESCE(MAX(id), 0), ${st.ftsCount ? `(${st.ftsCount})` : 'NULL'} FROM main.messages`
  )
    .raw()
    .get()!
  const ftsRows = st.ftsCount ? ftsRowCount(block) : 0
  if (top < st.maxMessage) {
    st.maxMessage = top
    // Without an FTS count (below) this is the only sign of a delete: the top of the list is read again.
    if (!st.ftsCount) {
      st.epoch = ++epochs
      const reread = stmt(db, rereadSql(st))
      const first = stmt<string>(db, `SELECT id FROM ${st.table} ORDER BY act DESC, started DESC, id DESC LIMIT ?`)
      for (const id of first.pluck().all(REREAD_TOP)) changed += reread.run({ id }).changes
    }
  }
  const recent = stmt<[string, number | null, number, number]>(
    db,
    `SELECT session_id, timestamp, id, role = 'user' AND content IS NOT NULL FROM main.messages
      WHERE id > ? + 0 AND id <= ? + 0`
  )
    .raw()
    .all(st.maxMessage, top)
  if (st.ftsCount) {
    // Fewer rows than before plus those added: messages were deleted somewhere (a clear_messages, a rewrite, a
    // session deleted), maybe where nothing else says so. Rare, and one statement: ~40 ms at 10k sessions.
    if (ftsRows < st.ftsRows + recent.length) changed += rereadAll(db, st)
    st.ftsRows = ftsRows
  }
  if (!recent.length) return changed
  // Per session: the latest time, and the earliest time of a new user message (no time sorts first).
  const latest = new Map<string, [number, number | null]>()
  for (const [id, ts, r, user] of recent) {
    const t = latest.get(id) ?? [-Infinity, null]
    if (typeof ts === 'number' && Number.isFinite(ts) && ts > t[0]) t[0] = ts
    if (user) {
      const u = typeof ts === 'number' && Number.isFinite(ts) ? ts : -Number.MAX_VALUE
      if (t[1] === null || u < t[1]) t[1] = u
    }
    latest.set(id, t)
    if (r > st.maxMessage) st.maxMessage = r
  }
  // Each session with new messages is read again whole: a rewrite may have deleted newer ones. A new user message
  // earlier than the known first one makes that pointer unknown (the next page finds it again).
  const reread = stmt(db, rereadSql(st))
  const first = stmt(db, `UPDATE ${st.table} SET first_user = NULL WHERE id = ? AND ? < first_ts`)
  for (const [id, [, user]] of latest) {
    changed += reread.run({ id }).changes
    if (user !== null) changed += first.run(id, user).changes
  }
  return changed
}

/**
 * `catchUp` on one read snapshot, as `build` fills: read apart, a foreign commit between the new sessions and the
 * newest message id would put a new session's message behind where the next catch-up starts, never counted (on a
 * v21 home its activity would stay its start time). A commit after the snapshot moves data_version: read next time.
 * On a failure (a foreign lock) the index rows roll back, and so does `st`.
 */
function catchUpInOneRead(db: Database.Database, st: State): number {
  if (db.inTransaction) return catchUp(db, st)
  const before = { ...st }
  try {
    return db.transaction(() => catchUp(db, st))()
  } catch (err) {
    Object.assign(st, before)
    throw err
  }
}

/**
 * What a list page found as its untitled rows' first user messages ([session, message id]): kept, so the next page
 * reads that one message (checked) instead of walking the session's messages to it. Not a cached answer — the
 * preview text is read from the file every time; this only says where to look, like the activity next to it, and
 * follows new messages (catchUp).
 */
export function notePreviewSources(db: Database.Database, rows: Array<[string, number]>): void {
  const st = states.get(db)
  if (!st || !rows.length) return
  const put = stmt(
    db,
    `UPDATE ${st.table} SET first_user = ?, first_ts = (SELECT timestamp FROM main.messages WHERE id = ?) WHERE id = ?`
  )
  let n = 0
  for (const [id, message] of rows) n += put.run(message, message, id).changes
  st.changes += n // our own writes: the next check stays quiet
}

/** Makes the index current for `db`; returns its table (schema-qualified) to read. */
export function refreshActivity(db: Database.Database): string {
  let st = states.get(db)
  const [dataVersion, changes] = version(db)
  if (st && st.dataVersion === dataVersion && st.changes === changes) return st.table
  if (st) {
    try {
      // Our own writes to the index move total_changes() too: count them in, so the next check is quiet.
      const own = catchUpInOneRead(db, st)
      st.dataVersion = dataVersion
      st.changes = changes + own
      return st.table
    } catch (err) {
      // Only a lost index table means start over; anything else (a foreign lock: SQLITE_BUSY) is the caller's to
      // retry, with this state kept as it was.
      if (!/no such table/i.test(errorMessage(err))) throw err
    }
  }
  states.delete(db) // a build that fails half way (the table dropped, not refilled) must not look current
  st = build(db)
  ;[st.dataVersion, st.changes] = version(db)
  states.set(db, st)
  return st.table
}

/**
 * Where `db`'s index stands on deletions: a number that moves whenever rows may have gone (messages deleted, the
 * newest session gone, the index rebuilt), which nothing read from added rows alone would say (list-kept.ts).
 * -1 before the index is built.
 */
export function activityEpoch(db: Database.Database): number {
  return states.get(db)?.epoch ?? -1
}

/**
 * Where `db`'s index stood when last made current: data_version and this connection's changes, its own index writes
 * counted in (null before it is built). Unchanged, nobody has committed since (list-kept.ts).
 */
export function activityMark(db: Database.Database): readonly [number, number] | null {
  const st = states.get(db)
  return st ? [st.dataVersion, st.changes] : null
}

/**
 * The watcher's path (watcher.ts, on every commit it sees): catches `db`'s index up now, off the request path.
 * Only an index a list already built is advanced — a home nobody listed is never scanned from here — and never
 * inside an open transaction on `db`.
 */
export function advanceActivity(db: Database.Database): void {
  if (states.has(db) && !db.inTransaction) refreshActivity(db)
}
