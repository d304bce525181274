/**
 * The built-in memory store: `<home>/memories/MEMORY.md` and `USER.md`, entries separated by `\n§\n`
 * (upstream-compatible, so the same files work with upstream Hermes). Every function takes the home
 * explicitly: nothing here consults the ambient scope, so a call can only touch the home it names.
 *
 * Read as upstream reads: line ends as Python's universal newlines, split on the delimiter, `str.strip()` each entry, drop empties, keep the first of duplicates. Every
 * read-modify-write holds upstream's own lock (flock on `MEMORY.md.lock` / `USER.md.lock`), so a concurrent
 * `hermes` session's write is never lost. A rewrite leaves the file 0600, as upstream's does, and writes through a
 * symlink (a MEMORY.md kept in a dotfiles folder stays a link). A file that is not UTF-8 is never rewritten.
 */
import { isUtf8 } from 'node:buffer'
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaduceusError } from '@shared/contract'
import { errorCode, isNotFound } from '@shared/contract/errors'
import { pyLen, pyStrip } from '@shared/contract/py-text'
import { loadConfig } from '../config'
import { withFlock } from '../scope'
import { readFileIfExists, refuseUnwritable, replaceFile } from '../files'
import {
  blockedMessage,
  ENTRY_DELIMITER,
  entriesSize,
  memoryLimitsOf,
  usageFigures,
  usageOf,
  type MemoryLimits,
  type MemoryUsage
} from './builtin-limits'

export type MemoryTarget = 'memory' | 'user'
export const MEMORY_TARGETS: readonly MemoryTarget[] = ['memory', 'user']

export const memoryFileName = (target: MemoryTarget) => (target === 'user' ? 'USER.md' : 'MEMORY.md')
export function memoryFile(home: string, target: MemoryTarget): string {
  return join(home, 'memories', memoryFileName(target))
}

function splitEntries(text: string): string[] {
  return text
    .split(ENTRY_DELIMITER)
    .map(pyStrip)
    .filter((e) => e.length > 0)
}

/** Python's universal newlines, as upstream's `read_text()` reads: CRLF and a lone CR are line ends. */
const universalNewlines = (s: string) => s.replace(/\r\n?/g, '\n')

/**
 * Stored text of `target` as upstream reads it, null when there is no file, or when the file cannot be read at all (a
 * folder in its place, no permission): upstream's read takes that OSError as no entries, so its prompt, its tool and
 * this store all see an empty target. Writes are refused before they get here (withMemoryLock: memoryFileProblem).
 */
function readRaw(home: string, target: MemoryTarget): string | null {
  let text: string | null
  try {
    text = readFileIfExists(memoryFile(home, target))
  } catch (err) {
    if (errorCode(err)) return null
    throw err
  }
  return text === null ? null : universalNewlines(text)
}

/** Entries of one target; a missing file is an empty store. Duplicates keep their first place only. */
export function readEntries(home: string, target: MemoryTarget): string[] {
  assertTarget(target)
  const raw = readRaw(home, target)
  return raw === null ? [] : [...new Set(splitEntries(raw))]
}

/**
 * How full `target`'s file is, as the memory tool counts it against the same limit (config.yaml's
 * `memory.<target>_char_limit`, read as the tool and the page's edits read it): the joined entries upstream keeps
 * (line ends normalised, entries stripped, blanks and repeats dropped), not the file's raw text. `entries` are the
 * ones just read or written, when the caller has them.
 */
export function memoryUsage(
  home: string,
  target: MemoryTarget,
  entries: readonly string[] = readEntries(home, target)
): MemoryUsage {
  return usageFigures(entries, memoryLimitsOf(loadConfig(home).raw)[target])
}

/** What keeps a memory file from being used as it is; null when nothing does (or there is no file). */
type FileTrouble = { kind: 'not-utf8' } | { kind: 'unreadable'; code: string; message: string }

/** Whether `target`'s file is readable UTF-8 text, and if not, how. */
export function memoryFileTrouble(home: string, target: MemoryTarget): FileTrouble | null {
  assertTarget(target)
  let bytes: Buffer
  try {
    bytes = readFileSync(memoryFile(home, target))
  } catch (err) {
    if (isNotFound(err)) return null
    const code = errorCode(err)
    if (!code) throw err
    return { kind: 'unreadable', code, message: err instanceof Error ? err.message : String(err) }
  }
  return isUtf8(bytes) ? null : { kind: 'not-utf8' }
}

/**
 * Why the file cannot be changed without losing what it holds, or null:
 * - bytes that are not UTF-8 (a hand edit saved as Latin-1, a binary file). Upstream's read raises on such a file and
 *   leaves it as it is; a lossy read would turn every such byte into U+FFFD on the next write, so Caduceus refuses
 *   too, and the Memory page shows the entries read-only with this text.
 * - a file that cannot be read at all: a folder in its place, no permission. Upstream reads it as empty (its prompt
 *   carries none of that target) and its write fails; Caduceus reads it the same and refuses writes with this text.
 */
export function memoryFileProblem(home: string, target: MemoryTarget): string | null {
  const trouble = memoryFileTrouble(home, target)
  if (!trouble) return null
  const file = memoryFile(home, target)
  const name = memoryFileName(target)
  if (trouble.kind === 'unreadable') {
    const what =
      trouble.code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${trouble.code}: ${trouble.message})`
    return (
      `${file} ${what}. Upstream Hermes reads it as empty, so none of its entries reach the agent's system prompt ` +
      `(in upstream Hermes or in Caduceus), and no entry can be saved to it. ` +
      (trouble.code === 'EISDIR'
        ? `Move the folder out of the way (its contents are left as they are) to use ${name} again.`
        : `Make it readable to use ${name} again.`)
    )
  }
  return (
    `${file} is not valid UTF-8 text (a byte in it cannot be read as UTF-8: perhaps a hand edit saved in another ` +
    `encoding), so Caduceus will not rewrite it: that would replace those bytes for good. Upstream Hermes cannot ` +
    `read it either, and while it is so neither MEMORY.md nor USER.md reaches the agent's system prompt (in ` +
    `upstream Hermes or in Caduceus). Re-save the file as UTF-8 to change its entries.`
  )
}

/**
 * memoryFileProblem for both files: what the profile's notices say (the rail, the sessions list's banner), so a user
 * who never opens the Memory page still learns why the agent's prompt goes without its memory.
 */
export function memoryFileProblems(home: string): string[] {
  return MEMORY_TARGETS.flatMap((target) => {
    try {
      const problem = memoryFileProblem(home, target)
      return problem ? [problem] : []
    } catch {
      return [] // not a file-system failure (those are problems above): nothing this notice can name
    }
  })
}

/**
 * Temp + rename: a reader (or upstream Hermes in another process) never sees half a file. The result is 0600
 * whatever the file's mode was, as upstream's temp-file write leaves it: the file holds personal facts, and a
 * wider mode kept here would be narrowed by upstream's next write anyway. A symlink stays a link and its target is
 * replaced (upstream's atomic_replace resolves the link the same way).
 */
export function writeEntries(home: string, target: MemoryTarget, entries: readonly string[]): void {
  assertTarget(target)
  const file = memoryFile(home, target)
  refuseUnwritable(memoryFileName(target), () => {
    mkdirSync(join(home, 'memories'), { recursive: true })
    replaceFile(file, entries.join(ENTRY_DELIMITER), { modeOf: () => 0o600, followLinks: true })
  })
}

/** How long a memory write waits for another process's lock before it is refused. */
const LOCK_WAIT_MS = 30_000
const lockWait = () => Number(process.env.CADUCEUS_MEMORY_LOCK_WAIT_MS) || LOCK_WAIT_MS

/**
 * Run `fn` under upstream's lock for `target` (`memories/<FILE>.lock`): read, change and write inside it. A file
 * that is not UTF-8 refuses every change before `fn` reads it (memoryFileProblem).
 */
export async function withMemoryLock<T>(home: string, target: MemoryTarget, fn: () => T): Promise<T> {
  const guarded = () => {
    const problem = memoryFileProblem(home, target)
    if (problem) throw new CaduceusError('conflict', `${problem} Nothing was changed.`)
    return fn()
  }
  return underMemoryLock(home, target, guarded)
}

/**
 * `caduceus memory reset`: remove a target's file under its lock, whatever it holds (erasing it is the point, so a
 * file that is not UTF-8 goes too, as upstream's reset unlinks it). False when there was no file.
 */
export async function removeMemoryFile(home: string, target: MemoryTarget): Promise<boolean> {
  if (!existsSync(memoryFile(home, target))) return false
  return underMemoryLock(home, target, () => {
    try {
      unlinkSync(memoryFile(home, target))
      return true
    } catch (err) {
      if (isNotFound(err)) return false // gone meanwhile (another reset)
      throw err
    }
  })
}

async function underMemoryLock<T>(home: string, target: MemoryTarget, fn: () => T): Promise<T> {
  assertTarget(target)
  // its folder and lock file are made before any change: a home this user cannot write refuses here, in words
  return refuseUnwritable(memoryFileName(target), () => lockedChange(home, target, fn))
}

async function lockedChange<T>(home: string, target: MemoryTarget, fn: () => T): Promise<T> {
  mkdirSync(join(home, 'memories'), { recursive: true })
  const lockFile = `${memoryFile(home, target)}.lock`
  const waitMs = lockWait()
  return withFlock(lockFile, fn, {
    waitMs,
    mode: 0o644, // as upstream's open(…, "a+") leaves it under the usual umask
    onTimeout: () =>
      new CaduceusError(
        'unavailable',
        `${memoryFileName(target)} is locked by another process for more than ${Math.round(waitMs / 1000)} s; nothing was changed — try again`
      ),
    onFailure: (why) => new CaduceusError('internal', `could not lock ${memoryFileName(target)}: ${why}`)
  })
}

/**
 * Upstream refuses to rewrite a file whose text would not survive its own parse + join (hand edits, a shell
 * append) or that holds an entry longer than the whole store's limit: the rewrite would drop
 * content. It saves the file as `<FILE>.bak.<unix seconds>` and refuses; so does Caduceus, so a write from either
 * program never destroys what the other would keep. Returns the backup's path, or null when the file is clean.
 */
export function driftBackup(home: string, target: MemoryTarget, limit: number): string | null {
  const raw = readRaw(home, target)
  if (raw === null || !pyStrip(raw)) return null
  const parsed = splitEntries(raw)
  const longest = Math.max(0, ...parsed.map(pyLen))
  if (pyStrip(raw) === parsed.join(ENTRY_DELIMITER) && longest <= limit) return null
  const bak = `${memoryFile(home, target)}.bak.${Math.floor(Date.now() / 1000)}`
  try {
    writeFileSync(bak, raw, 'utf8')
  } catch {
    // the refusal stands either way; its message says the backup failed and the file is unchanged
    return `${bak} (BACKUP FAILED — file unchanged on disk)`
  }
  return bak
}

export const driftMessage = (target: MemoryTarget, bak: string) =>
  `Refusing to rewrite ${memoryFileName(target)}: the file holds text that would not survive a rewrite (a hand ` +
  `edit, a shell append, or an entry longer than the whole store's limit). Its current text ` +
  `was saved to ${bak}. Make the file a clean list of entries separated by lines holding only '§', then retry.`

/**
 * An entry may not hold what would read back as a delimiter: upstream's tool takes such an entry and its next read
 * finds two. Only the exact `\n§\n` splits (after universal newlines), inside the entry or, for a last line of
 * just '§', where the next entry is joined on; a '§' line with spaces around it, a first line of just '§' and a
 * lone '§' read back whole in both programs, so they are kept as upstream keeps them.
 */
export function normalizeEntry(content: string): string {
  const text = pyStrip(content)
  if (!text) throw new CaduceusError('invalid_input', 'entry text is required', 'content')
  const read = universalNewlines(text)
  if (read.includes(ENTRY_DELIMITER) || read.endsWith('\n§'))
    throw new CaduceusError('invalid_input', "entry text may not contain a line holding only '§'", 'content')
  return text
}

export type EntryEdit =
  | { op: 'add'; target: MemoryTarget; content: string }
  | { op: 'replace'; target: MemoryTarget; index: number; expected?: string; content: string }
  | { op: 'remove'; target: MemoryTarget; index: number; expected?: string }

/**
 * UI edit by index, strictly within `home`, under the same lock, size limit (config.yaml's), threat scan and
 * rewrite guard as the memory tool. `expected` (the entry's text as the page showed it) is checked under the lock,
 * as upstream's tool finds its entry by text: an index alone would land on whatever another process moved there.
 * Returns the new list; a refusal is a CaduceusError the page shows.
 */
export async function editEntry(home: string, edit: EntryEdit, limits?: MemoryLimits): Promise<string[]> {
  assertTarget(edit.target)
  const limit = (limits ?? memoryLimitsOf(loadConfig(home).raw))[edit.target]
  const text = edit.op === 'remove' ? '' : normalizeEntry(edit.content)
  if (edit.op !== 'remove') {
    const blocked = blockedMessage(text)
    if (blocked) throw new CaduceusError('invalid_input', blocked, 'content')
  }
  return withMemoryLock(home, edit.target, () => {
    const entries = readEntries(home, edit.target)
    if (edit.op !== 'add') {
      // also when the file has no entry at that place any more
      if (edit.expected !== undefined && entries[edit.index] !== edit.expected)
        throw new CaduceusError(
          'conflict',
          `That entry of ${memoryFileName(edit.target)} was changed or moved by another program since it was shown. ` +
            'Nothing was changed; its entries are read again.'
        )
      if (!Number.isInteger(edit.index) || edit.index < 0 || edit.index >= entries.length)
        throw new CaduceusError('not_found', `no ${edit.target} entry at index ${edit.index}`, 'index')
      const bak = driftBackup(home, edit.target, limit)
      if (bak) throw new CaduceusError('conflict', driftMessage(edit.target, bak))
    }
    const next = [...entries]
    if (edit.op === 'add') {
      if (next.includes(text)) return next
      next.push(text)
    } else if (edit.op === 'replace') next[edit.index] = text
    else next.splice(edit.index, 1)
    if (edit.op !== 'remove' && entriesSize(next) > limit)
      throw new CaduceusError(
        'invalid_input',
        `${edit.target === 'user' ? 'User profile' : 'Memory'} would be at ${usageOf(next, limit, false)} chars, over its limit (memory.${edit.target}_char_limit in config.yaml). Shorten this entry or remove others first.`,
        'content'
      )
    writeEntries(home, edit.target, next)
    return next
  })
}

function assertTarget(target: string): asserts target is MemoryTarget {
  if (target !== 'memory' && target !== 'user')
    throw new CaduceusError('invalid_input', "target must be 'memory' or 'user'", 'target')
}
