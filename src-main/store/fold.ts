/**
 * Caseless text matching that agrees between JavaScript and SQL. SQLite's `lower()` folds ASCII only, so a term the
 * search lowercases in JavaScript ("übersicht") never matched a title SQLite left as written ("Übersicht Plan").
 * Every connection the store opens gets `cad_fold(text)`, a deterministic SQL function that folds as `foldCase`
 * does; it is used only in queries, never in the schema, views or triggers another program would have to know.
 */
import type Database from 'better-sqlite3'

/**
 * JavaScript's Unicode lowercase, with two changes: İ (U+0130) folds to a plain i, as SQLite's word index folds it
 * (its lowercase would be i + a combining dot: the one character whose lowercase is longer), and the final sigma
 * folds as the other sigma (which one a word ends in depends on position). So every character folds to one of the
 * same length: a position in the folded text is the same position in the original (snippets highlight by it).
 */
export const foldCase = (s: string): string =>
  s
    .replace(/\u0130/g, 'i')
    .toLowerCase()
    .replace(/ς/g, 'σ')

/** The SQL name of `foldCase`, registered on every connection the store opens. */
export const FOLD_SQL = 'cad_fold'

/**
 * foldCase without diacritics (é → e), as FTS5's default unicode61 tokenizer matches words: for a scan that must find
 * at least the rows the word index would (search-match.ts), never for positions. Registered as `cad_base`.
 */
export const baseFold = (s: string): string => foldCase(s.normalize('NFD').replace(/\p{M}/gu, ''))
export const BASE_SQL = 'cad_base'

export function registerFold(db: Database.Database): void {
  db.function(BASE_SQL, { deterministic: true }, (v: unknown) =>
    v === null || v === undefined ? null : baseFold(typeof v === 'string' ? v : String(v))
  )
  db.function(FOLD_SQL, { deterministic: true }, (v: unknown) =>
    v === null || v === undefined ? null : foldCase(typeof v === 'string' ? v : String(v))
  )
}
