/**
 * A change to a home's file that this user cannot make — a read-only mount (a backup, a container volume), another
 * user's home — said in words: what cannot be changed and why, as the store says it for state.db (store/read-copy.ts),
 * not as the `EACCES: permission denied, mkdir '…/cron'` of whichever step (a folder, a lock file, the temp file
 * beside the file) failed first. Other failures pass through as they are.
 */
import { accessSync, constants, existsSync } from 'node:fs'
import { userInfo } from 'node:os'
import { dirname } from 'node:path'
import { CaduceusError } from '@shared/contract'

const DENIED = new Set(['EACCES', 'EPERM', 'EROFS'])

function userName(): string {
  try {
    return `user ${userInfo().username}`
  } catch {
    return 'this user' // a uid with no passwd entry (a container's): unnamed
  }
}

/** The path the refusal names: the failing path when it is there and not writable, else its nearest existing folder. */
function blocking(path: string): string {
  let at = path
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at)
  if (at === path) {
    try {
      accessSync(at, constants.W_OK)
      return dirname(at) // the file is writable: its folder (where the temp file goes) is not
    } catch {
      return at // the file itself is not writable: name it
    }
  }
  return at
}

/** Why this user may not write `path` (EROFS, EACCES, EPERM), or null when it may (or cannot tell: ENOENT…). */
function deniedAt(path: string): string | null {
  try {
    accessSync(path, constants.W_OK)
    return null
  } catch (err) {
    const code = (err as { code?: unknown }).code
    return typeof code === 'string' && DENIED.has(code) ? code : null
  }
}

/** A denial code in words, after the path it names: "is on a read-only file system", "is not writable by user …". */
const deniedWords = (code: string) =>
  code === 'EROFS' ? 'is on a read-only file system' : `is not writable by ${userName()}`

/**
 * Why this user cannot write `path` itself, in those words; null when it can, or when the check cannot tell (no
 * such file: the write itself says what is wrong). The store says it of a state.db (store/read-copy.ts).
 */
export function writeDenial(path: string): string | null {
  const code = deniedAt(path)
  return code && deniedWords(code)
}

/** `err` as the refusal of changing `what`, or null when it is not a permission or read-only-mount failure. */
function unwritableRefusal(err: unknown, what: string): CaduceusError | null {
  const e = err as { code?: unknown; path?: unknown; syscall?: unknown } | null
  if (!e || typeof e.code !== 'string') return null
  let code = e.code
  // Node's recursive mkdir on a read-only mount reports ENOENT for the folder it could not make: ask the nearest
  // existing folder why.
  if (code === 'ENOENT' && e.syscall === 'mkdir' && typeof e.path === 'string')
    code = deniedAt(blocking(e.path)) ?? code
  if (!DENIED.has(code)) return null
  const where = typeof e.path === 'string' && e.path ? blocking(e.path) : 'its folder'
  return new CaduceusError('refused', `${what} cannot be changed: ${where} ${deniedWords(code)}. Nothing was changed.`)
}

/** Run the change `fn` to `what` (a file of a home), its permission failures refused in words (unwritableRefusal). */
export function refuseUnwritable<T>(what: string, fn: () => T): T {
  const refuse = (err: unknown): never => {
    throw unwritableRefusal(err, what) ?? err
  }
  let out: T
  try {
    out = fn()
  } catch (err) {
    return refuse(err)
  }
  return out instanceof Promise ? (out.catch(refuse) as T) : out
}
