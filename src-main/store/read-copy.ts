/**
 * A state.db this user may read but not write, that no program holds open: a home on a read-only mount (a backup, a
 * container volume) or another user's home on a shared machine. SQLite reads a WAL file only through its -shm, and
 * creates that beside the file when no open connection left one there; in a folder it may not write, every read
 * fails ("attempt to write a readonly database", "unable to open database file" — upstream's own code fails the same
 * way). So the store reads a private copy of the file and its -wal instead, taken again whenever the original
 * changes (`sourcePrint`; off the event loop, read-copy-refresh.ts), and refuses writes saying why. A copy is kept
 * only if the original's print did not move while it was read. Once a program opens the original (its -shm is there),
 * SQLite reads it directly again and the store follows the original (session-store.ts `syncFile`).
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { copyFile, rm } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { writeDenial } from '../files'

export interface ReadCopy {
  /** The private folder holding the copy (removed when the store lets go of it). */
  dir: string
  /** The copy SQLite opens. */
  file: string
  /** Why the original cannot be read in place, in words. */
  reason: string
  /** The original's state (`sourcePrint`) when copied: another print means the copy is stale. */
  print: string
  takenAt: number
}

const READONLY_CODES = /^SQLITE_(READONLY|CANTOPEN)/

/** Why this user cannot write `path` or create files beside it (read-only file system, permissions); null if it can. */
export function whyNotWritable(path: string): string | null {
  const folder = writeDenial(dirname(path))
  if (folder) return `its folder ${folder}`
  const file = writeDenial(path)
  return file && `it ${file}`
}

/**
 * Why `file` can only be read from a copy, or null when the failure `err` is something else: SQLite could not
 * create the -shm (none there) because the folder is read-only or not this user's to write.
 */
export function copyReason(file: string, err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !READONLY_CODES.test(code)) return null
  if (existsSync(`${file}-shm`)) return null
  const why = whyNotWritable(file)
  return why?.startsWith('its folder') ? why : null
}

/** The original's state, state.db and its -wal: size and modification time of each (absent reads as '-'). */
export function sourcePrint(file: string): string {
  return [file, `${file}-wal`]
    .map((p) => {
      try {
        const st = statSync(p, { bigint: true })
        return `${st.ino}:${st.size}:${st.mtimeNs}`
      } catch {
        return '-' // absent (no -wal) or gone meanwhile: a print of its own
      }
    })
    .join('|')
}

/**
 * Copies state.db and its -wal (SQLite replays it into the copy when it opens) into a new folder only this user can
 * read, on the calling thread: the store's first open, which has no earlier copy to serve meanwhile (`refreshCopy`
 * takes the later ones off the event loop). Throws what the copy met (e.g. EACCES on an original this user may not
 * read either).
 */
export function takeCopy(file: string, reason: string): ReadCopy {
  const steps = copySteps(file, reason)
  for (let step = steps.next(); ;) {
    if (step.done) return step.value
    let failed: Failed = null
    try {
      copyFileSync(step.value.from, step.value.to)
    } catch (error) {
      failed = { error }
    }
    step = steps.next(failed)
  }
}

/**
 * `takeCopy` off the event loop (libuv's threads copy the bytes): a home of hundreds of MB took the host's loop for
 * up to a second at every change of the original. The store serves its previous copy until this one is whole.
 */
export async function refreshCopy(file: string, reason: string): Promise<ReadCopy> {
  const steps = copySteps(file, reason)
  for (let step = steps.next(); ;) {
    if (step.done) return step.value
    let failed: Failed = null
    try {
      await copyFile(step.value.from, step.value.to)
    } catch (error) {
      failed = { error }
    }
    step = steps.next(failed)
  }
}

/** What one file's copy met: null when it went through. */
type Failed = { error: unknown } | null

/**
 * The copy's rule, once for both callers: each file to copy is yielded (the caller copies it, on its thread or off
 * it, and answers how that went), then the whole is kept, taken again, or its failure thrown.
 */
function* copySteps(file: string, reason: string): Generator<{ from: string; to: string }, ReadCopy, Failed> {
  for (let tries = 1; ; tries++) {
    const { dir, copy } = copyFolder(file)
    const print = sourcePrint(file)
    let failed = yield { from: file, to: copy }
    if (!failed && existsSync(`${file}-wal`)) failed = yield { from: `${file}-wal`, to: `${copy}-wal` }
    if (failed && sourcePrint(file) === print) return failCopy(dir, failed.error)
    if (sourcePrint(file) === print) return { dir, file: copy, reason, print, takenAt: Date.now() }
    unstable(dir, tries)
  }
}

/**
 * A copy is a snapshot only if the original did not move while it was read: the owner's program may open it meanwhile
 * and its close checkpoints the WAL into state.db and deletes the -wal, so bytes read across that are from two states.
 * Such a copy is never opened; it is taken again (the print before and after must agree).
 */
function unstable(dir: string, tries: number): void {
  dropDir(dir)
  if (tries >= COPY_TRIES) throw new Error(`it changed each of the ${COPY_TRIES} times it was copied`)
}
const COPY_TRIES = 3

function failCopy(dir: string, err: unknown): never {
  dropDir(dir)
  throw err
}

/** A new private folder for one copy (its leftovers of a dead process dropped), and the copy's path in it. */
function copyFolder(file: string): { dir: string; copy: string } {
  const key = createHash('sha256').update(file).digest('hex').slice(0, 16)
  const base = join(tmpdir(), `caduceus-read-copy-${process.getuid?.() ?? 'u'}`)
  mkdirSync(base, { recursive: true, mode: 0o700 })
  // Another user's data goes in there: a folder someone else made (or opened up) in the shared tmpdir is refused.
  const st = lstatSync(base)
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0)
    throw new Error(`${base} is not a private folder of this user`)
  // A folder per copy: the store's connection on the last copy stays open until the new one has opened.
  const dir = mkdtempSync(join(base, `${key}-`))
  live.add(dir)
  dropLeftovers(base, key, dir)
  return { dir, copy: join(dir, 'state.db') }
}

/**
 * Copies still in use when the process exits (a CLI command never closes its stores) go with it: they hold data
 * of a home that is not this user's to keep. A process killed outright leaves its copies to `dropLeftovers`.
 */
const live = new Set<string>()
process.once('exit', () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true })
})

/** Copies of this original a process that died left behind (older than an hour: a live process re-copies sooner). */
function dropLeftovers(base: string, key: string, keep: string): void {
  const hourAgo = Date.now() - 3600_000
  for (const name of readdirSync(base)) {
    const dir = join(base, name)
    if (!name.startsWith(`${key}-`) || dir === keep) continue
    try {
      if (statSync(dir).mtimeMs < hourAgo) rmSync(dir, { recursive: true, force: true })
    } catch {
      /* gone meanwhile */
    }
  }
}

/** Removes a copy no connection reads any more; its hundreds of MB are unlinked off the event loop. */
export function dropCopy(c: ReadCopy): void {
  dropDir(c.dir)
}

function dropDir(dir: string): void {
  // still `live` until gone: an exit meanwhile removes it on the spot
  void rm(dir, { recursive: true, force: true })
    .catch(() => undefined)
    .finally(() => live.delete(dir))
}

/** The refusal of a write to a home read from a copy. */
export function readCopyRefusal(path: string, c: ReadCopy): string {
  return `${path} cannot be changed: ${c.reason} (Caduceus reads it from a copy taken at ${clock(c.takenAt)})`
}

/** What the profile shows while it is read from a copy. */
export function readCopyNotice(c: ReadCopy): string {
  return `Read-only: ${c.reason}. Caduceus reads a copy (taken at ${clock(c.takenAt)}, again whenever it changes) and cannot change anything in it.`
}

const clock = (ms: number) => new Date(ms).toLocaleTimeString('en-GB', { hour12: false })
