/**
 * An exclusive `flock(2)` on a lock file, the lock upstream Hermes takes around its read-modify-write of a home's
 * files (cron/.jobs.lock, memories/MEMORY.md.lock and USER.md.lock), so it and this app never rewrite the same
 * file at once. Node has no flock(2), so a small helper process takes it and holds it until we close its stdin:
 * `flock(1)` from util-linux (present on every Debian), else `python3`'s fcntl (macOS). If this process dies, the
 * pipe closes and the helper exits, releasing the lock. The wait is bounded; past it `onTimeout` names the refusal,
 * and the change is never made without the lock.
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

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).concat(['/usr/bin', '/bin'])) {
    const p = join(dir, name)
    if (dir && existsSync(p)) return p
  }
  return null
}

// Waits (polling LOCK_NB, as upstream's cron lock does) until the deadline, says `locked`, holds until stdin closes.
const PY_HOLDER = [
  'import fcntl, sys, time',
  'f = open(sys.argv[1], "a+")',
  'end = time.monotonic() + float(sys.argv[2])',
  'while True:',
  '    try:',
  '        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB); break',
  '    except OSError:',
  `        if time.monotonic() > end: sys.exit(${TIMED_OUT})`,
  '        time.sleep(0.05)',
  'print("locked", flush=True)',
  'sys.stdin.read()'
].join('\n')

function holder(lockFile: string, waitMs: number, onFailure: FlockOptions['onFailure']): ChildProcess {
  const secs = String(Math.max(0, waitMs) / 1000)
  const flock = onPath('flock')
  if (flock)
    return spawn(
      flock,
      ['-x', '-w', secs, '-E', String(TIMED_OUT), lockFile, 'sh', '-c', 'echo locked; cat >/dev/null'],
      { stdio: ['pipe', 'pipe', 'pipe'] }
    )
  const py = onPath('python3')
  if (py) return spawn(py, ['-c', PY_HOLDER, lockFile, secs], { stdio: ['pipe', 'pipe', 'pipe'] })
  throw onFailure('neither flock(1) nor python3 is installed')
}

/** Run `fn` holding the exclusive flock on `lockFile`; refuse (`onTimeout`) after `waitMs` of someone else holding it. */
export async function withFlock<T>(lockFile: string, fn: () => T | Promise<T>, opts: FlockOptions): Promise<T> {
  closeSync(openSync(lockFile, 'a', opts.mode ?? 0o600))
  const child = holder(lockFile, opts.waitMs, opts.onFailure)
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)))
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const locked = await new Promise<boolean>((done) => {
    child.stdout!.on('data', (d) => String(d).includes('locked') && done(true))
    child.once('error', () => done(false))
    void exited.then(() => done(false))
  })
  if (!locked) {
    const code = await exited
    if (code === TIMED_OUT) throw opts.onTimeout()
    throw opts.onFailure(stderr.trim() || `helper exited ${code}`)
  }
  try {
    return await fn()
  } finally {
    child.stdin!.end()
    await exited
  }
}
