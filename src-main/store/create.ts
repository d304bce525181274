/**
 * Creating a missing state.db so that no other process ever sees it half made (several `caduceus run -z` starting
 * on an empty home, upstream Hermes opening it meanwhile). The schema is built in a private file beside it, closed
 * (its WAL checkpointed away) and then hard-linked into place: link() is the atomic "create if absent", so when a
 * file is there by then — another process won — that one is kept and used, never replaced. Upstream sees either
 * no file or a complete one it can open and write. Where the filesystem has no hard links the file is created in
 * place as before (another process then briefly sees a busy file: retried, never "cannot be read").
 */
import Database from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { reconcile } from './reconcile'
import { detectShape } from './shape'
import { copyShape, shapeTemplate } from './shape-template'

/** A creation takes well under a second: a temp file this old was left by a process that died creating. */
const STALE_TEMP_MS = 3_600_000

/** Removes temp files a creator that crashed left beside `file` (never a live one: those are seconds old). */
function removeStaleTemps(file: string): void {
  const dir = dirname(file)
  const prefix = `.${basename(file)}.`
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return // no folder to list: no temp files to clear
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !/\.[0-9a-f]{12}\.new(-wal|-shm|-journal)?$/.test(name)) continue
    const p = join(dir, name)
    try {
      if (Date.now() - statSync(p).mtimeMs > STALE_TEMP_MS) rmSync(p, { force: true })
    } catch {
      /* gone meanwhile */
    }
  }
}

/** Creates `file` complete (0600, schema reconciled, WAL when `wal`) unless something is already there. */
export function createStateDb(file: string, wal: boolean, options: Database.Options): void {
  mkdirSync(dirname(file), { recursive: true })
  if (existsSync(file)) return
  removeStaleTemps(file)
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.new`)
  closeSync(openSync(tmp, 'wx', 0o600))
  try {
    const db = new Database(tmp, { ...options, fileMustExist: true })
    try {
      // Only this process knows the file: a failed switch (no WAL on this filesystem) is reported by the first
      // write's own switch on the real file, which meets the same filesystem.
      if (wal)
        try {
          db.pragma('journal_mode = WAL')
        } catch {
          /* kept in its mode; see above */
        }
      // The shape of the home's other state.db where it has one (its upstream's schema version), else the current.
      const template = shapeTemplate(file)
      if (template) copyShape(db, template, options)
      db.transaction(() => reconcile(db, detectShape(db)))()
    } finally {
      db.close() // the last connection: checkpoints and removes the -wal/-shm, so the file alone is complete
    }
    try {
      linkSync(tmp, file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return // another process created it first: use that
      // No hard links on this filesystem: an empty file in place, shaped by the first write under its write lock (the
      // home's template included: open.ts), so another process meanwhile sees it busy, never half made.
      if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600))
    }
  } finally {
    // Best effort: the file is in place; a temp another process holds open (Windows) goes with a later creation.
    for (const p of [tmp, `${tmp}-wal`, `${tmp}-shm`, `${tmp}-journal`])
      try {
        rmSync(p, { force: true })
      } catch {
        /* cleared as stale later (removeStaleTemps) */
      }
  }
}
