/**
 * Replace a file by temp + rename, so a reader (or upstream Hermes in another process) never sees half of it. The
 * new file's mode is `modeOf(the existing file's mode, or null when there is none)`; with `followLinks` a symlink
 * stays one and its target is replaced (as upstream's atomic_replace keeps it). The temp file is written 0600 until
 * its mode is set, and removed when anything fails: it may hold secrets.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync
} from 'node:fs'
import { dirname, resolve } from 'node:path'
import { isNotFound } from '@shared/contract/errors'

/**
 * Where a write through `path` lands: its real path, or for a link whose target does not exist yet (a dotfiles link
 * made before its file) the path the link chain ends at, as Python's non-strict `os.path.realpath` gives it, so the
 * file is created there and the link stays. A loop still throws ELOOP.
 */
function followLinks(path: string): string {
  try {
    return realpathSync(path)
  } catch (err) {
    if (!isNotFound(err)) throw err
  }
  let at = path
  for (let hops = 0; hops < 40; hops++) {
    let link: string
    try {
      if (!lstatSync(at).isSymbolicLink()) return at
      link = readlinkSync(at)
    } catch (err) {
      if (isNotFound(err)) return at
      throw err
    }
    at = resolve(dirname(at), link)
  }
  throw Object.assign(new Error(`ELOOP: too many symbolic links, ${path}`), { code: 'ELOOP' })
}

export function replaceFile(
  path: string,
  text: string,
  opts: { modeOf: (existing: number | null) => number; followLinks?: boolean }
): void {
  let target = path
  let existing: number | null = null
  try {
    if (opts.followLinks) target = followLinks(path)
    existing = statSync(target).mode
  } catch (err) {
    if (!isNotFound(err)) throw err // a file there that cannot be stat'ed is not a new file: its mode rule would be lost
  }
  const mode = opts.modeOf(existing)
  const tmp = `${target}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`
  try {
    const fd = openSync(tmp, 'wx', 0o600)
    try {
      const bytes = Buffer.from(text, 'utf8')
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
      fsyncSync(fd) // on disk before the rename: a power cut leaves the old file or the new one, never an empty one
    } finally {
      closeSync(fd)
    }
    chmodSync(tmp, mode) // the umask narrowed the open's mode
    renameSync(tmp, target)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}
