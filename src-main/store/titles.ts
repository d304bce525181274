/** Title rules (hermes-spec §1.8): sanitize, length cap, uniqueness, provenance rank. */
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { sessions } from './schema'
import { CaduceusError, cleanTitle, MAX_TITLE_LENGTH } from '@shared/contract'
import { pathFromRoot } from './lineage'

type TitleColumns = ColumnsOf<typeof sessions, 'title' | 'title_source'>

export type TitleSource = 'user' | 'llm' | 'derived' | 'branch' | 'branch_fallback'

// NULL counts as `user`; automatic sources only land on untitled rows or over a strictly lower rank.
const RANK: Record<string, number> = { derived: 1, branch_fallback: 1, branch: 2, llm: 3, user: 4 }

export function sanitizeTitle(raw: string | null | undefined): string | null {
  const clean = cleanTitle(raw)
  if (clean === null) return null
  if (clean.length > MAX_TITLE_LENGTH) {
    throw new CaduceusError('invalid_input', `Title too long (${clean.length} chars, max ${MAX_TITLE_LENGTH})`, 'title')
  }
  return clean
}

/** Writes the title inside the caller's transaction; returns whether it landed. */
export function writeTitle(db: Database.Database, id: string, raw: string | null, source: TitleSource): boolean {
  const title = sanitizeTitle(raw)
  const row = stmt<TitleColumns>(db, 'SELECT title, title_source FROM sessions WHERE id = ?').get(id)
  if (!row) return false
  if (source !== 'user' && row.title !== null) {
    if ((RANK[source] ?? 0) <= (RANK[row.title_source ?? 'user'] ?? 4)) return false
  }
  if (title !== null) {
    const holder = stmt<ColumnsOf<typeof sessions, 'id'>>(
      db,
      'SELECT id FROM sessions WHERE title = ? AND id <> ? LIMIT 1'
    ).get(title, id)
    if (holder) {
      // A compression ancestor's title moves to its descendant instead of conflicting.
      const ancestors = new Set(pathFromRoot(db, id).map((r) => r.id))
      if (!ancestors.has(holder.id)) {
        throw new CaduceusError('conflict', `Title '${title}' is already in use by session ${holder.id}`, 'title')
      }
      stmt(db, 'UPDATE sessions SET title = NULL WHERE id = ?').run(holder.id)
    }
  }
  // Compare-and-swap on the value we read, so a concurrent writer's title is never silently clobbered.
  const res = stmt(db, 'UPDATE sessions SET title = ?, title_source = ? WHERE id = ? AND title IS ?').run(
    title,
    title === null ? null : source,
    id,
    row.title
  )
  return res.changes > 0
}

/**
 * The next title in a lineage, by upstream's `get_next_title_in_lineage`: a trailing " #N" is taken off to find the
 * base; the base alone when no session has it or a numbered variant of it, else the base numbered one past the
 * highest number in use (the unnumbered original counts as #1). Variants are found as upstream's LIKE finds them.
 */
export function nextTitleInLineage(db: Database.Database, title: string): string {
  const base = /^(.*?) #(\d+)$/.exec(title)?.[1] ?? title
  const escaped = base.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_')
  // Matched by `=` or LIKE, so never NULL.
  const existing = stmt<{ title: NonNullable<TitleColumns['title']> }>(
    db,
    "SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'"
  ).all(base, `${escaped} #%`)
  if (existing.length === 0) return base
  let max = 1
  for (const { title: t } of existing) {
    const n = /^.* #(\d+)$/.exec(t)
    if (n) max = Math.max(max, Number(n[1]))
  }
  return `${base} #${max + 1}`
}

/** A session's title and its provenance (NULL provenance counts as the user's), or null when it has no title. */
export function lineageTitleOf(db: Database.Database, id: string): { title: string; source: TitleSource } | null {
  const row = stmt<TitleColumns>(db, 'SELECT title, title_source FROM sessions WHERE id = ?').get(id)
  if (!row?.title) return null
  const source = (row.title_source ?? 'user') in RANK ? ((row.title_source ?? 'user') as TitleSource) : 'user'
  return { title: row.title, source }
}
