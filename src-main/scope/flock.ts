/**
 * An exclusive `flock(2)` on a lock file, the lock upstream Hermes takes around its read-modify-write of a home's
 * files (cron/.jobs.lock, memories/MEMORY.md.lock and USER.md.lock), so it and this app never rewrite the same
 * file at once. Node has no flock(2), so a short-lived helper takes it on a descriptor this process opened and hands
 * down: a flock belongs to the open file, not to the process that took it, so it stays held after the helper exits,
 * until this process closes the descriptor (or dies). The helper is `flock(1)` from util-linux (present on every
 * Debian), else `python3`'s fcntl (macOS). One process per lock, where a helper that held the lock for the whole
 * change took three (flock, sh, cat) and a pipe. The wait is bounded; past it `onTimeout` names the refusal, and the
 * change is never made without the lock.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { delimiter, join } from 'node:path'

export interface FlockOptions {
  waitMs: number
  /** Mode of a lock file that does not exist yet. */
  mode?: number
  /** The error thrown when someone else holds the lock past `waitMs`. */
  onTimeout: () => Error
  /** The error thrown when the helper cannot take the lock at all. */
  onFailure: (why: string) => Error
}

const TIMED_OUT = 75
/** The lock file's descriptor in the helper. */
const FD = 3

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).concat(['/usr/bin', '/bin'])) {
    const p = join(dir, name)
    if (dir && existsSync(p)) return p
  }
  return null
}

// Polls LOCK_NB (as upstream's cron lock does) on the inherited descriptor until the deadline, then exits.
const PY_LOCKER = [
  'import fcntl, sys, time',
  'end = time.monotonic() + float(sys.argv[1])',
  'while True:',
  '    try:',
  `        fcntl.flock(${FD}, fcntl.LOCK_EX | fcntl.LOCK_NB); break`,
  '    except BlockingIOError:',
  `        if time.monotonic() > end: sys.exit(${TIMED_OUT})`,
  '        time.sleep(0.05)'
].join('\n')

function locker(fd: number, waitMs: number, onFailure: FlockOptions['onFailure']): ChildProcess {
  const secs = String(Math.max(0, waitMs) / 1000)
  const stdio: ['ignore', 'ignore', 'pipe', number] = ['ignore', 'ignore', 'pipe', fd]
  const flock = onPath('flock')
  if (flock) return spawn(flock, ['-x', '-w', secs, '-E', String(TIMED_OUT), String(FD)], { stdio })
  const py = onPath('python3')
  if (py) return spawn(py, ['-c', PY_LOCKER, secs], { stdio })
  throw onFailure('neither flock(1) nor python3 is installed')
}

/** Run `fn` holding the exclusive flock on `lockFile`; refuse (`onTimeout`) after `waitMs` of someone else holding it. */
export async function withFlock<T>(lockFile: string, fn: () => T | Promise<T>, opts: FlockOptions): Promise<T> {
  const fd = openSync(lockFile, 'a', opts.mode ?? 0o600)
  try {
    const child = locker(fd, opts.waitMs, opts.onFailure)
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const code = await new Promise<number | null | Error>((done) => {
      child.once('error', done)
      child.once('close', done)
    })
    if (code instanceof Error) throw opts.onFailure(code.message)
    if (code === TIMED_OUT) throw opts.onTimeout()
    if (code !== 0) throw opts.onFailure(stderr.trim() || `helper exited ${code}`)
    return await fn()
  } finally {
    closeSync(fd) // releases the lock
  }
}
