/**
 * The messages upstream's own FTS indexes do not hold, by upstream's markers in `state_meta` (hermes-spec §1.3):
 * - `fts_rebuild_high_water` / `fts_rebuild_progress`: a deferred rebuild is under way; its sync triggers index a
 *   row only when `id > high_water` or `id <= progress` (both absent: always), so the rows in (progress, high_water]
 *   are in neither the word nor the trigram index until the rebuild reaches them.
 * - `fts_stale`: upstream found an index it could not repair, detached its sync triggers and searches the rows
 *   instead until a later open rebuilds it: what the indexes hold then may be missing rows, or hold rows as they
 *   were before another write changed or deleted them, so none of it is trusted.
 * A search reads these rows itself (search-match.ts): by a scan of just that id range, FTS5's word semantics kept by
 * checking the rows the scan found in a TEMP word index of their own (`wordIndexOf`).
 * (`fts_cjk_stale` and the `messages_fts_cjk` index it marks are not read by any search here: this SQLite cannot
 * load that index's tokenizer, so it could not be queried even when current.)
 */
import type Database from 'better-sqlite3'
import { hasTable, stmt } from './stmt-cache'
import type { HomeShape } from './shape'
import type { sqliteMaster } from './schema'
import { FTS_TOOL_CONTENT_PREFIX_CHARS } from './schema/fts'

/** Message ids in (after, upTo] (upTo null: every id above `after`) are in no upstream index. */
export interface IndexGap {
  after: number
  upTo: number | null
  /** The sentence the search result carries. */
  note: string
}

/** Whether upstream marked its FTS indexes stale (set and not '0'). */
export function ftsMarkedStale(db: Database.Database): boolean {
  if (!hasTable(db, 'state_meta')) return false
  const v = stmt<string | null>(db, "SELECT value FROM main.state_meta WHERE key = 'fts_stale'").pluck().get()
  return v !== undefined && v !== null && v.trim() !== '0'
}

/** The rows the home's indexes leave out by upstream's markers, or null when they hold every row. */
export function indexGap(db: Database.Database, shape: HomeShape): IndexGap | null {
  if ((shape.fts === 'none' && shape.trigram === 'none') || !shape.tables.has('state_meta')) return null
  if (ftsMarkedStale(db))
    return {
      after: -1,
      upTo: null,
      note: 'Upstream marked its search index stale (fts_stale): every message was scanned.'
    }
  // read as the triggers' gate reads them: CAST(value AS INTEGER), an absent progress as -1
  const marks = stmt<[number | null, number | null]>(
    db,
    `SELECT (SELECT CAST(value AS INTEGER) FROM main.state_meta WHERE key = 'fts_rebuild_high_water'),
      (SELECT CAST(value AS INTEGER) FROM main.state_meta WHERE key = 'fts_rebuild_progress')`
  )
    .raw()
    .get()
  const high = marks?.[0]
  if (high === null || high === undefined) return null
  const after = Math.max(-1, Number(marks?.[1] ?? -1))
  if (Number(high) <= after) return null
  return {
    after,
    upTo: Number(high),
    note: `Upstream's search index is being rebuilt and does not hold messages ${after + 1}–${high} yet: those rows were scanned.`
  }
}

/** `m` rows inside the gap, as SQL (params appended). */
export function inGap(g: IndexGap, args: unknown[], m = 'm.'): string {
  args.push(g.after)
  if (g.upTo === null) return `${m}id > ?`
  args.push(g.upTo)
  return `(${m}id > ? AND ${m}id <= ?)`
}

/**
 * At most this many rows are checked word by word in a TEMP index (~3 µs a row to index); past it, the scan's text
 * match answers, and the result says so.
 */
export const WORD_CHECK_CAP = 200_000

const TEMP = 'cad_gap_words'

/** Whether a TEMP copy of the home's word index can be made: columns it knows, in a layout it knows. */
const knownLayout = (shape: HomeShape) =>
  shape.ftsColumns.length > 0 &&
  (shape.fts === 'inline'
    ? shape.ftsColumns.length === 1
    : shape.ftsColumns.every((c) => ['content', 'tool_name', 'tool_calls'].includes(c)))
/** The word index's tokenize option as written in its DDL (quotes kept), or undefined for FTS5's default. */
function tokenizeOption(db: Database.Database): string | undefined {
  const sql =
    stmt<(typeof sqliteMaster.$inferSelect)['sql']>(
      db,
      "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = 'messages_fts'"
    )
      .pluck()
      .get() ?? ''
  return /tokenize\s*=\s*('(?:[^']|'')*'|"(?:[^"]|"")*")/i.exec(sql)?.[1]
}

/**
 * The texts of message `m` the home's word index holds, one SQL expression each (a v21 index's one column holds
 * all three joined by spaces: a word of any of them is a word there), where its tokenizer is unicode61 as FTS5 makes
 * it by default (no token characters added, no stemmer): there a run of ASCII letters and digits between two spaces is
 * one token, folded as SQLite's lower() folds it. null for any other index.
 */
export function plainWordTexts(db: Database.Database, shape: HomeShape): string[] | null {
  if (!knownLayout(shape)) return null
  const tokenize = tokenizeOption(db)
  if (tokenize !== undefined && !/^['"]\s*unicode61(\s+remove_diacritics\s+[012])?\s*['"]$/i.test(tokenize)) return null
  if (shape.fts === 'inline') return ['m.content', 'm.tool_name', 'm.tool_calls']
  return shape.ftsColumns.map((c) =>
    c === 'content'
      ? `CASE WHEN m.role = 'tool' THEN substr(m.content, 1, ${FTS_TOOL_CONTENT_PREFIX_CHARS}) ELSE m.content END`
      : `m.${c}`
  )
}

/**
 * A TEMP word index holding exactly `ids` as the home's word index would hold them (its columns, its tokenizer; tool
 * output cut as the v30 view cuts it), for FTS5 to answer a query over them with its own semantics. Returns its
 * (unqualified: FTS5's MATCH names the table; no main table has it), or null where it cannot be made like the home's (a tokenizer this SQLite lacks, columns it does not know).
 */
export function wordIndexOf(db: Database.Database, shape: HomeShape, ids: number[]): string | null {
  const cols = shape.ftsColumns
  if (!knownLayout(shape)) return null
  const tokenize = tokenizeOption(db)
  const name = `${TEMP}_${cols.length}_${(tokenize ?? 'default').replace(/\W/g, '_')}`
  try {
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${name} USING fts5(${cols.map((c) => `"${c}"`).join(', ')}, content=''${tokenize ? `, tokenize=${tokenize}` : ''})`
    )
    db.exec(`INSERT INTO temp.${name}(${name}) VALUES('delete-all')`)
  } catch {
    // a tokenizer this SQLite cannot load (or no TEMP schema to write): the caller matches the rows as text
    return null
  }
  const value = (c: string) =>
    shape.fts === 'inline'
      ? "COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '')"
      : c === 'content'
        ? `CASE WHEN role = 'tool' THEN substr(content, 1, ${FTS_TOOL_CONTENT_PREFIX_CHARS}) ELSE content END`
        : c
  stmt(
    db,
    `INSERT INTO temp.${name}(rowid, ${cols.map((c) => `"${c}"`).join(', ')})
      SELECT id, ${cols.map(value).join(', ')} FROM main.messages WHERE id IN (SELECT value FROM json_each(?))`
  ).run(JSON.stringify(ids))
  return name
}

/** Empties a TEMP word index after its query: the words of those messages are not kept past the search. */
export function clearWordIndex(db: Database.Database, name: string): void {
  db.exec(`INSERT INTO temp.${name}(${name}) VALUES('delete-all')`)
}
