/**
 * Upstream's jobs.json lock: an exclusive `flock` on `<cron dir>/.jobs.lock`, so `hermes cron` (and upstream's
 * gateway ticker) and this app never rewrite jobs.json at the same time. Node has no flock(2), so a small helper
 * process takes it and holds it until we close its stdin: `flock(1)` from util-linux (present on every Debian),
 * else `python3`'s fcntl (macOS). If this process dies, the pipe closes and the helper exits, releasing the lock.
 * The wait is bounded (upstream waits 30 s too); past it the edit is refused, never made without the lock.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** Upstream's bound; CADUCEUS_CRON_LOCK_WAIT_MS overrides it (tests, slow shared disks). */
export const LOCK_WAIT_MS = 30_000
const waitDefault = () => Number(process.env.CADUCEUS_CRON_LOCK_WAIT_MS) || LOCK_WAIT_MS
export const lockFileOf = (cronDir: string) => join(cronDir, '.jobs.lock')

export class JobsLockError extends Error {}

const TIMED_OUT = 75

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).concat(['/usr/bin', '/bin'])) {
    const p = join(dir, name)
    if (dir && existsSync(p)) return p
  }
  return null
}

// Waits (polling LOCK_NB, as upstream does) until the deadline, says `locked`, holds until stdin closes.
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

function holder(lockFile: string, waitMs: number): ChildProcess {
  const secs = String(Math.max(0, waitMs) / 1000)
  const flock = onPath('flock')
  if (flock)
    return spawn(
      flock,
      ['-x', '-w', secs, '-E', String(TIMED_OUT), lockFile, 'sh', '-c', 'echo locked; cat >/dev/null'],
      {
        stdio: ['pipe', 'pipe', 'pipe']
      }
    )
  const py = onPath('python3')
  if (py) return spawn(py, ['-c', PY_HOLDER, lockFile, secs], { stdio: ['pipe', 'pipe', 'pipe'] })
  throw new JobsLockError(`cannot take the cron jobs lock ${lockFile}: neither flock(1) nor python3 is installed`)
}

/** Run `fn` holding the exclusive lock on `<cronDir>/.jobs.lock`; refuse after `waitMs` of someone else holding it. */
export async function withJobsLock<T>(cronDir: string, fn: () => T | Promise<T>, waitMs = waitDefault()): Promise<T> {
  const lockFile = lockFileOf(cronDir)
  closeSync(openSync(lockFile, 'a', 0o600))
  const child = holder(lockFile, waitMs)
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
    if (code === TIMED_OUT)
      throw new JobsLockError(
        `jobs.json is locked by another process (${lockFile}) for more than ${Math.round(waitMs / 1000)} s; not changing it — try again`
      )
    throw new JobsLockError(
      `could not take the cron jobs lock ${lockFile}: ${stderr.trim() || `helper exited ${code}`}`
    )
  }
  try {
    return await fn()
  } finally {
    child.stdin!.end()
    await exited
  }
}
