/**
 * Caduceus's own index for the search terms no FTS index can answer quickly: one or two characters of CJK,
 * emoji or symbols (trigrams need three; the word index does not split them). Every run of such characters
 * in a message (the text the home's own trigram index holds, which a scan reads too: `substringParts`) is stored as
 * its 1- and 2-character grams, so a 1–2 character term is an exact gram lookup that answers what `instr` over every
 * row would. A longer term's 2-character grams narrow the rows upstream's trigram index leaves out (search-match.ts)
 * to a few candidates that `instr` then checks.
 *
 * - Built only by Caduceus's own write transactions, in `cad_` tables: reads never create or fill it, upstream's
 *   tables are never touched. A write indexes the rows above `indexed_to` when they are few (its own, a few another
 *   program added: WRITE_STEP); a longer backlog (a home Caduceus never indexed, 500k rows of it) is left to slices of
 *   their own (SLICE_STEP) that the store runs on a timer between writes, yielding to the event loop between them
 *   (session-store.ts), so no write of a turn pays for the catch-up. Until it is current the search reads what is
 *   indexed and scans the rest, or scans everything (below), so it stays complete meanwhile.
 * - Catches up with other programs: their inserts are the rows above `indexed_to` (message ids are
 *   AUTOINCREMENT, never reused) — a search reads the index up to there and scans only the rows after it; their
 *   deletes leave grams whose message is gone, which the search's join on `messages` drops and later writes
 *   purge window by window.
 * - Their in-place rewrites of a message's text (no new id, so no backlog shows them) are named by the store's
 *   watcher from the WAL: a search reads those rows by their text until a recheck slice, off the write path, has
 *   compared them with their grams and a write of their own has read the changed ones again (Rechecks, below).
 * - Missing, or more than STALE_ROWS behind: the search does a complete scan instead (search-match.ts).
 * - No `session_id` here, on purpose: per-session counts straight from the grams would skip the join on
 *   `messages`, but that join is what keeps them right after another program rewinds a message (upstream's
 *   `UPDATE messages SET active = 0`, which no Caduceus write sees) or deletes one (grams linger until purged);
 *   upstream's indexes cannot answer "this id, still there and shown" without reading the row.
 */
import type Database from 'better-sqlite3'
import { hasTable, stmt } from './stmt-cache'
import type { messages } from './schema'
import type { HomeShape } from './shape'
import { ftsMarkedStale } from './search-gap'
import { ftsSegments, newSegments, type Segment, segmentRowids, withTails } from './fts-segments'

const T = 'cad_short_grams'
const S = 'cad_short_grams_state'
/**
 * The state-table key of the FTS index segments `messages` were last known to match in (markVerified): a JSON text
 * `{ fts, segments }` among the integers (a row of the table every index has, not a table of its own: a close never
 * changes the file's schema).
 */
const F = 'verified_fts'
/** Behind by more rows than this, a search scans everything rather than the index plus a long tail. */
export const STALE_ROWS = 50_000
/** Rows read per batch; the time budget is checked after every row, so a slice never overruns by a batch. */
const CHUNK = 64
/**
 * What a write transaction indexes itself: a backlog of at most `backlog` rows (the write's own, and a few another
 * program added), within `budgetMs`. A longer backlog is left to the slices: a write never pays for the home.
 */
export const WRITE_STEP = { budgetMs: 2, backlog: 256 } as const
/** One catch-up slice off the write path (session-store.ts runs them between writes). */
export const SLICE_STEP = { budgetMs: 8 } as const
/**
 * Message ids whose grams one write checks for deleted messages (the windows cycle through the whole index).
 * Small on purpose: this rides on every Caduceus write (a turn's appends among them), and grams of a deleted
 * message are only dead weight meanwhile — a search never returns them (it joins `messages`).
 */
const PURGE_WINDOW = 500

/** A character FTS5 cannot split into words, plus what joins such characters (ZWJ, variation selectors, marks). */
const RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{S}\p{Extended_Pictographic}\p{M}\u200d]/u

/** A term the index answers exactly: 1–2 characters, all of the run class, caseless. */
export function isShortTerm(text: string): boolean {
  const cps = [...text]
  return cps.length >= 1 && cps.length <= 2 && cps.every((c) => RUN.test(c)) && text.toLowerCase() === text
}

/** Every 1- and 2-character gram of every run of run-class characters in `text`. */
function gramsOf(text: string): Set<string> {
  const out = new Set<string>()
  let prev: string | null = null
  for (const c of text) {
    if (!RUN.test(c)) {
      prev = null
      continue
    }
    out.add(c)
    if (prev !== null) out.add(prev + c)
    prev = c
  }
  return out
}

/**
 * Whether the home's substring index holds a message's tool calls besides its content and tool name: upstream's
 * inline indexes (v21, and a later home not yet moved to external-content storage) index
 * `content || ' ' || tool_name || ' ' || tool_calls` in one column; the v30 trigram index (external content) holds
 * content and tool_name only. A home without a trigram index goes by its word index's layout.
 */
function substringHasCalls(shape: HomeShape): boolean {
  return shape.trigram === 'inline' || (shape.trigram === 'none' && shape.fts === 'inline')
}

/**
 * The SQL columns of message `alias` whose text, joined with ' ', a substring term is matched in: what the home's
 * trigram index holds for that row (substringHasCalls), so a scanned 1–2 character term and a trigram-answered longer
 * one read the same text (search-query.ts toInstr tests a term without a space on each column apart).
 */
export function substringParts(shape: HomeShape, alias = 'm.'): readonly string[] {
  const parts = [`${alias}content`, `${alias}tool_name`]
  return substringHasCalls(shape) ? [...parts, `${alias}tool_calls`] : parts
}

/** substringParts as one text, as the grams are read from it. */
const substringText = (shape: HomeShape) =>
  substringParts(shape, '')
    .map((c) => `COALESCE(${c}, '')`)
    .join(" || ' ' || ")

/** The text kind the index's grams were read from, kept in its state table (absent: content and tool name). */
const textKind = (calls: boolean) => (calls ? 1 : 0)

/** The newest message's id (0: none). */
const lastId = (db: Database.Database) =>
  Number(stmt(db, 'SELECT COALESCE(MAX(id), 0) FROM main.messages').pluck().get())

/**
 * Where the index stands for a read: null when this home has none (Caduceus never wrote it), or when its grams were
 * read from another text than this shape's (upstream moved the home to another FTS layout since): never looked up
 * until the slices have read it again.
 */
export function shortIndexState(db: Database.Database, shape: HomeShape): { indexedTo: number; behind: number } | null {
  if (!hasTable(db, S)) return null
  const state = new Map(
    // (not the FTS mark: a JSON record of segments and ids, read only where the mark is checked)
    stmt<[string, number]>(db, `SELECT k, v FROM main.${S} WHERE k <> '${F}'`)
      .raw()
      .all()
      .map(([k, v]) => [k, Number(v)])
  )
  if ((state.get('text') ?? 0) !== textKind(substringHasCalls(shape))) return null
  const indexedTo = state.get('indexed_to') ?? 0
  return { indexedTo, behind: Math.max(0, lastId(db) - indexedTo) }
}

/**
 * One step of catch-up inside a Caduceus write transaction (main tables, read views dropped): index rows above
 * `indexed_to` for up to `budgetMs` — none when more than `backlog` rows are behind (a write's step: the slices
 * take a long backlog) — then purge grams of deleted messages in one id window. Runs in a savepoint: a failure
 * here never fails the write it rides on. Returns how many rows are still behind (0: current, or failed — the next
 * write starts again). `shape`: the home's, whose substring text (substringText) the grams are read from; an index
 * read from another text is read again from the first row (a slice's work: the grams it lacks are added, and when
 * it held more — tool calls a home no longer indexes — it is emptied first, once).
 */
export function shortIndexStep(
  db: Database.Database,
  shape: HomeShape,
  o: { budgetMs: number; backlog?: number }
): number {
  if (!hasTable(db, 'messages')) return 0
  db.exec('SAVEPOINT cad_short_index')
  try {
    // The DDL only when the index is missing (a first write, or someone dropped it): parsing it costs more than
    // the rest of a typical step, which finds no new rows.
    const kind = textKind(substringHasCalls(shape))
    if (!hasTable(db, S) || !hasTable(db, T))
      db.exec(`CREATE TABLE IF NOT EXISTS main.${T} (gram TEXT NOT NULL, message_id INTEGER NOT NULL,
        PRIMARY KEY (gram, message_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS main.${T}_message ON ${T}(message_id);
      CREATE TABLE IF NOT EXISTS main.${S} (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
      INSERT OR IGNORE INTO main.${S} (k, v) VALUES ('indexed_to', 0), ('purged_to', 0), ('text', ${kind});`)
    const get = (k: string) => Number(stmt(db, `SELECT v FROM main.${S} WHERE k = ?`).pluck().get(k) ?? 0)
    const set = stmt(db, `INSERT OR REPLACE INTO main.${S} (k, v) VALUES (?, ?)`)
    const held = get('text')
    // a long backlog is the slices' (a write leaves it, and its purge, to them)
    const from = held === kind ? get('indexed_to') : 0
    const behind = lastId(db) - from
    if (o.backlog !== undefined && behind > o.backlog) {
      db.exec('RELEASE cad_short_index')
      return behind
    }
    if (held !== kind) {
      // grams of text this home's index no longer holds would answer a lookup they should not: emptied (a one-off
      // clear of the table's pages); grams a wider text adds are simply read from the first row again
      if (held > kind) db.exec(`DELETE FROM main.${T}`)
      set.run('indexed_to', 0)
      set.run('purged_to', 0)
      set.run('text', kind)
    }
    const rows = stmt<[(typeof messages.$inferSelect)['id'], string]>(
      db,
      `SELECT id, ${substringText(shape)} FROM main.messages WHERE id > ? ORDER BY id LIMIT ${CHUNK}`
    ).raw()
    const put = stmt(db, `INSERT OR IGNORE INTO main.${T} (gram, message_id) VALUES (?, ?)`)
    const t0 = performance.now()
    let to = from
    let over = false
    while (!over) {
      const batch = rows.all(to)
      for (const [id, text] of batch) {
        if (RUN.test(text)) for (const g of gramsOf(text)) put.run(g, id)
        to = id
        if (performance.now() - t0 > o.budgetMs) {
          over = true
          break
        }
      }
      if (batch.length < CHUNK) break
    }
    set.run('indexed_to', to)
    const purged = get('purged_to')
    const start = purged >= to || to <= PURGE_WINDOW ? 0 : purged
    const end = Math.min(to, start + PURGE_WINDOW)
    stmt(
      db,
      `DELETE FROM main.${T} WHERE message_id > ? AND message_id <= ?
        AND NOT EXISTS (SELECT 1 FROM main.messages m WHERE m.id = ${T}.message_id)`
    ).run(start, end)
    set.run('purged_to', end)
    db.exec('RELEASE cad_short_index')
    return Math.max(0, lastId(db) - to)
  } catch {
    // Undone: the index is a cache, the next write's step starts again from indexed_to (see above).
    db.exec('ROLLBACK TO cad_short_index')
    db.exec('RELEASE cad_short_index')
    return 0
  }
}

/**
 * Ids of messages holding `gram` (deleted ones included: join them with messages), up to the id given second: the
 * rows whose grams are trusted. Above it the search reads rows by their text, so a row's old grams past it (a row
 * under recheck) must not answer too.
 */
export const SHORT_LOOKUP = `SELECT message_id AS id FROM main.${T} WHERE gram = ? AND message_id <= ?`

/**
 * Messages `m` holding `gram` (the first `?`) up to the id given second, joined straight from the grams: in id order,
 * each row read once, with no list of ids built first (what `m.id IN (SHORT_LOOKUP …)` does).
 */
export const SHORT_JOIN = `main.${T} g CROSS JOIN messages m ON m.id = g.message_id WHERE g.gram = ? AND g.message_id <= ?`

/** At most this many grams narrow a long term: a few pieces already leave few rows, each more is a list read. */
const NARROWING = 3

/**
 * Grams every row holding `text` (matched caseless) holds: its 2-character grams (a lone character where a run of
 * them is one long), of characters without case only — a cased one (Ⓐ) may be stored in its other case. First,
 * middle and last of them. Empty: nothing narrows this text.
 */
export function narrowingGrams(text: string): string[] {
  const out: string[] = []
  let run: string[] = []
  const end = () => {
    if (run.length === 1) out.push(run[0]!)
    for (let i = 1; i < run.length; i++) out.push(run[i - 1]! + run[i]!)
    run = []
  }
  for (const c of text) {
    if (RUN.test(c) && c.toLowerCase() === c && c.toUpperCase() === c) run.push(c)
    else end()
  }
  end()
  const grams = [...new Set(out)]
  // a lone character adds nothing where a 2-character gram holds it
  const kept = grams.filter((g) => [...g].length === 2 || !grams.some((o) => [...o].length === 2 && o.includes(g)))
  if (kept.length <= NARROWING) return kept
  return [kept[0]!, kept[Math.floor(kept.length / 2)]!, kept[kept.length - 1]!]
}

/** Ids of messages up to `indexedTo` holding every one of `count` grams (one `?` each). */
export const gramsLookup = (count: number): string =>
  Array.from({ length: count }, () => `SELECT message_id FROM main.${T} WHERE gram = ?`).join(' INTERSECT ')

/**
 * What says whether anyone wrote to `messages` since the index was last known to match it, without reading a row.
 * Upstream's FTS triggers fire on every INSERT, UPDATE and DELETE of a message (a hand edit in `sqlite3` included),
 * and FTS5 rewrites its structure record (`<index>_data` id 10: its segments and write counter) at every commit that
 * touched the index; with the newest id it names the state of `messages`. Null where that does not hold: no FTS
 * index, its update trigger gone (an SQLite without FTS5 dropped them), or upstream's `fts_stale` (it detached them).
 * Any commit that touched messages changes it, inserts too: a mismatch only says "read the rows again to be sure".
 */
export function messagesMark(db: Database.Database): number | null {
  const indexes = markIndexes(db)
  if (!indexes) return null
  const parts: string[] = []
  for (const fts of indexes) {
    const block = stmt<Buffer | null>(db, `SELECT block FROM main.${fts}_data WHERE id = 10`).pluck().get()
    parts.push(`${fts}:${block ? block.toString('hex') : ''}`)
  }
  parts.push(String(lastId(db)))
  // FNV-1a to 48 bits: the state table holds integers, and a chance collision only skips a recheck
  let h = 0xcbf29ce484222325n
  for (const c of Buffer.from(parts.join('|'))) h = ((h ^ BigInt(c)) * 0x100000001b3n) & 0xffffffffffffn
  return Number(h)
}

/** The FTS indexes whose upstream triggers see every write to `messages` (messagesMark); null: none, or detached. */
function markIndexes(db: Database.Database): string[] | null {
  if (ftsMarkedStale(db)) return null
  const out: string[] = []
  for (const fts of ['messages_fts', 'messages_fts_trigram']) {
    if (!hasTable(db, `${fts}_data`)) continue
    const trigger = stmt<number>(
      db,
      "SELECT count(*) FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND name = ?"
    )
      .pluck()
      .get(`${fts}_update`)
    if (trigger) out.push(fts)
  }
  return out.length ? out : null
}

/** FTS leaf pages read at most to name the rows written since the verified state (~4 KB each). */
const CHANGED_PAGES = 2000
/** Rows without a term (blindRows) a verified state lists at most: past it, it lists none (as before it did). */
const BLIND_ROWS = 2000

/**
 * The rows of index `fts` without a single term (an empty text, or a few symbols or emoji, which the word tokenizer
 * splits on and the trigram one needs three characters of): another program's rewrite of one writes nothing to the
 * index (a delete and an insert of no term), so neither the mark nor the segments since show it. The verified state
 * lists them, and the next open reads them again whatever the mark says. Null: the index keeps no sizes, or there
 * are more than BLIND_ROWS.
 */
function blindRows(db: Database.Database, fts: string): number[] | null {
  if (!hasTable(db, `${fts}_docsize`)) return null
  const ids = stmt<number>(db, `SELECT id FROM main.${fts}_docsize WHERE sz = zeroblob(length(sz)) LIMIT ?`)
    .pluck()
    .all(BLIND_ROWS + 1)
  return ids.length > BLIND_ROWS ? null : ids.map(Number)
}

/** What markVerified recorded beside the mark: the FTS index, its segments, its rows without a term. */
interface VerifiedRecord {
  fts?: unknown
  segments?: unknown
  blind?: unknown
}

/** The verified state's record (markVerified), or null when there is none this reading understands. */
function verifiedRecord(db: Database.Database): VerifiedRecord | null {
  const held = stmt<unknown>(db, `SELECT v FROM main.${S} WHERE k = ?`).pluck().get(F)
  if (typeof held !== 'string') return null
  try {
    const record = JSON.parse(held) as VerifiedRecord | null
    return record && typeof record === 'object' ? record : null
  } catch {
    return null // not what markVerified wrote
  }
}

/** The rows without a term the verified state listed (blindRows), read again at every open. */
function blindSinceVerified(db: Database.Database): number[] {
  if (!hasTable(db, S)) return []
  const blind = verifiedRecord(db)?.blind
  return Array.isArray(blind) ? blind.filter((id): id is number => Number.isSafeInteger(id)) : []
}

/**
 * The messages another program (or Caduceus) can have written since the index was last known to match them (the
 * state markVerified recorded), without reading one: every write to a message reaches upstream's FTS index through
 * its triggers, and lands in a segment that state's index did not hold (fts-segments.ts). Rows above `indexed_to` are
 * among them too (the catch-up's anyway); a deleted row may not be (a merge into the oldest level drops its
 * entries), which is harmless: its grams never answer, the search joins `messages`. Null when that cannot be told:
 * nothing recorded, triggers gone, an index rebuilt or merged past CHANGED_PAGES (re-read every row then).
 */
export function changedSinceVerified(db: Database.Database): number[] | null {
  if (!hasTable(db, S)) return null
  const verified = stmt<number>(db, `SELECT v FROM main.${S} WHERE k = 'verified'`).pluck().get()
  const fts = markIndexes(db)?.[0]
  if (verified === undefined || !fts) return null
  const record = verifiedRecord(db)
  const now = ftsSegments(db, fts)
  if (!record || !now || record.fts !== fts || !Array.isArray(record.segments)) return null
  const before = record.segments as Segment[]
  const rows = segmentRowids(db, fts, newSegments(db, fts, before, now), CHANGED_PAGES)
  return rows && [...new Set([...rows, ...blindSinceVerified(db)])]
}

/**
 * Whether the index is known to match `messages` as they are now: the mark its last verified state left
 * (`verified`, written by markVerified) is the mark of the table now, so nobody wrote a message since. False for a
 * home with no index, or one whose mark cannot be read (messagesMark null).
 */
export function shortIndexVerified(db: Database.Database): boolean {
  if (!hasTable(db, S)) return false
  const held = stmt<number>(db, `SELECT v FROM main.${S} WHERE k = 'verified'`).pluck().get()
  if (held === undefined) return false
  const now = messagesMark(db)
  return now !== null && Number(held) === now
}

/**
 * Inside a Caduceus write transaction that changes no message: records that the index matches `messages` as they
 * are now (the caller knows it: nobody else committed since it was last known to match). Returns whether it wrote.
 */
export function markVerified(db: Database.Database): boolean {
  if (!hasTable(db, S)) return false
  const mark = messagesMark(db)
  const held = stmt<number>(db, `SELECT v FROM main.${S} WHERE k = 'verified'`).pluck().get()
  const recorded = stmt<unknown>(db, `SELECT v FROM main.${S} WHERE k = ?`).pluck().get(F)
  // (a mark an older Caduceus recorded, without the segments or the rows without a term: recorded again with them)
  const complete = recorded === 'null' || (verifiedRecord(db) ?? {}).blind !== undefined
  if (mark === null || (held !== undefined && Number(held) === mark && complete)) return false
  const set = stmt(db, `INSERT OR REPLACE INTO main.${S} (k, v) VALUES (?, ?)`)
  set.run('verified', mark)
  // and the FTS segments of this state, which tell the next open the rows written since (changedSinceVerified)
  const fts = markIndexes(db)?.[0]
  const segments = fts ? ftsSegments(db, fts) : null
  set.run(
    F,
    fts && segments
      ? JSON.stringify({ fts, segments: withTails(db, fts, segments), blind: blindRows(db, fts) })
      : 'null'
  )
  return true
}

/** Rows one recheck slice compares at most, besides its time budget. */
const RECHECK_IDS = 2000

/**
 * Rows another program may have rewritten in place since the index read them. Its inserts are the rows above
 * `indexed_to` and its deletes fall out of the join on `messages`, but an UPDATE of a message's text (a redaction, a
 * truncated tool result, a hand edit) leaves the row's old grams: its old text would still match and its new text
 * would not. The store's watcher names the rows each commit wrote, read from the WAL (wal-pages.ts: rowids of every
 * table, so most are other tables' rows or unchanged), or null where the WAL cannot tell. Until a row is compared
 * with its grams again (recheckSlice, off the write path) a search reads it by `instr` instead (forSearch); a null
 * puts every indexed row under recheck, read again from the first one.
 */
export class Rechecks {
  /** Rows above this (up to `indexed_to`) are read again before their grams are trusted; Infinity: none. */
  checkedTo = Number.POSITIVE_INFINITY
  /** Rows to compare with their grams. */
  readonly ids = new Set<number>()
  /** Rows whose grams were found to differ from their text: re-read by the store's next write (regram). */
  readonly changed = new Set<number>()

  /**
   * Returns true when the rows read again are not only the ones named: every indexed row (a null), or, too many to
   * name one by one, every one from the lowest named (those a merged FTS segment names after another program's
   * session are mostly its newest rows: a fraction of the home).
   */
  note(rowids: readonly number[] | null): boolean {
    if (rowids === null || this.ids.size + rowids.length > RECHECK_IDS * 8) {
      let low = rowids === null ? 1 : this.checkedTo + 1
      for (const id of rowids ?? []) if (id < low) low = id
      for (const id of this.ids) if (id < low) low = id
      this.checkedTo = Math.max(0, low - 1)
      this.ids.clear()
      return true
    }
    for (const id of rowids) if (id <= this.checkedTo) this.ids.add(id)
    return false
  }
  /** Whether a recheck slice has work. */
  get pending(): boolean {
    return this.checkedTo !== Number.POSITIVE_INFINITY || this.ids.size > 0
  }
  /** What a search reads by `instr` instead of the grams: rows above `before`, and `ids`; null: nothing. */
  forSearch(): { before: number; ids: number[] } | null {
    if (!this.pending && !this.changed.size) return null
    return { before: this.checkedTo, ids: [...this.ids, ...this.changed] }
  }
}

/** The stored grams of messages in (from, to], per message. */
function storedGrams(db: Database.Database, from: number, to: number): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>()
  const rows = stmt<[string, number]>(
    db,
    `SELECT gram, message_id FROM main.${T} INDEXED BY ${T}_message WHERE message_id > ? AND message_id <= ?`
  )
    .raw()
    .all(from, to)
  for (const [g, id] of rows) {
    const s = out.get(id)
    if (s) s.add(g)
    else out.set(id, new Set([g]))
  }
  return out
}

const sameGrams = (a: Set<string> | undefined, b: Set<string>) =>
  (a?.size ?? 0) === b.size && [...b].every((g) => a!.has(g))

/**
 * One recheck slice, read-only (no write lock): compares rows named in `r.ids`, then rows above `r.checkedTo`, with
 * their stored grams, for up to `budgetMs`; a row that differs goes to `r.changed` for the store's next write. Rows
 * above `indexed_to` are the ordinary catch-up's. Returns whether work is left.
 */
export function recheckSlice(db: Database.Database, shape: HomeShape, r: Rechecks, budgetMs: number): boolean {
  const state = shortIndexState(db, shape)
  if (state === null) {
    // no index (or one read from another text, which the catch-up reads again whole): nothing to recheck
    r.ids.clear()
    r.checkedTo = Number.POSITIVE_INFINITY
    return false
  }
  const top = state.indexedTo
  const t0 = performance.now()
  const text = stmt<[(typeof messages.$inferSelect)['id'], string]>(
    db,
    `SELECT id, ${substringText(shape)} FROM main.messages WHERE id IN (SELECT value FROM json_each(?))`
  ).raw()
  const named = [...r.ids].filter((id) => id <= top).slice(0, RECHECK_IDS)
  for (const id of r.ids) if (id > top) r.ids.delete(id)
  if (named.length) {
    const now = new Map(text.all(JSON.stringify(named)).map(([id, t]) => [Number(id), t]))
    for (const id of named) {
      const grams = stmt<string>(db, `SELECT gram FROM main.${T} WHERE message_id = ?`).pluck().all(id)
      const t = now.get(id)
      if (!sameGrams(new Set(grams), t === undefined ? new Set() : gramsOf(t))) r.changed.add(id)
      r.ids.delete(id)
    }
  }
  const window = stmt<[(typeof messages.$inferSelect)['id'], string]>(
    db,
    `SELECT id, ${substringText(shape)} FROM main.messages WHERE id > ? AND id <= ? ORDER BY id LIMIT ${CHUNK * 8}`
  ).raw()
  while (r.checkedTo < top && performance.now() - t0 <= budgetMs) {
    const from = r.checkedTo
    const rows = window.all(from, top)
    const to = rows.length ? Number(rows[rows.length - 1]![0]) : top
    const stored = storedGrams(db, from, to)
    for (const [id, t] of rows) {
      if (!sameGrams(stored.get(Number(id)), RUN.test(t) ? gramsOf(t) : new Set())) r.changed.add(Number(id))
    }
    // grams of rows gone are the purge's; nothing to re-read for them
    r.checkedTo = rows.length < CHUNK * 8 ? top : to
  }
  if (r.checkedTo >= top) r.checkedTo = Number.POSITIVE_INFINITY
  return r.pending
}

/**
 * Of the rows without a term the verified state listed (blindRows), those whose grams no longer hold their text: read
 * now, at an open whose mark says nobody wrote (a few rows, where the mark cannot see theirs).
 */
export function blindRewritten(db: Database.Database, shape: HomeShape): number[] {
  const r = new Rechecks()
  r.note(blindSinceVerified(db))
  while (recheckSlice(db, shape, r, Number.POSITIVE_INFINITY));
  return [...r.changed]
}

/** Inside a Caduceus write transaction: the grams of `ids` read again from their current text (a row gone: none). */
export function regram(db: Database.Database, shape: HomeShape, ids: readonly number[]): void {
  if (!ids.length || !hasTable(db, T)) return
  const list = JSON.stringify(ids)
  stmt(db, `DELETE FROM main.${T} WHERE message_id IN (SELECT value FROM json_each(?))`).run(list)
  const put = stmt(db, `INSERT OR IGNORE INTO main.${T} (gram, message_id) VALUES (?, ?)`)
  const rows = stmt<[(typeof messages.$inferSelect)['id'], string]>(
    db,
    `SELECT id, ${substringText(shape)} FROM main.messages WHERE id IN (SELECT value FROM json_each(?))`
  )
    .raw()
    .all(list)
  for (const [id, t] of rows) if (RUN.test(t)) for (const g of gramsOf(t)) put.run(g, id)
}
