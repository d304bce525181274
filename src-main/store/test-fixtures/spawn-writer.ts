/** Runs test-fixtures/writer.ts in a real second Node process (tsx loader, repo root as cwd). */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const WRITER = join(here, 'writer.ts')
const REPO = resolve(here, '../../..')
/**
 * `node UPSTREAM_APPEND <state.db> <session> [text] [secondsAhead]`: another program appending one message in
 * upstream's write shape (test/fixtures/upstream-append.mjs, plain JS: no tsx start per append).
 */
export const UPSTREAM_APPEND = join(REPO, 'test/fixtures/upstream-append.mjs')

export function spawnWriter(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], { cwd: REPO, stdio: 'pipe' })
}

/** Runs a one-shot writer command to completion; rejects with its stderr on failure. */
export function runWriter(args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawnWriter(args)
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      err += d
    })
    child.on('error', fail)
    child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`writer exited ${code}: ${err}`))))
  })
}

/** test/fixtures/restore-backup.mjs: another program renames a backup over state.db, or deletes it outright. */
export const RESTORE_BACKUP = join(REPO, 'test/fixtures/restore-backup.mjs')

/**
 * Another process restores `backup` over `dbPath` (removing -wal/-shm unless `keepSidecars`, as upstream's quick
 * snapshot restore leaves them), or with `backup` null deletes it.
 */
export function restoreBackup(backup: string | null, dbPath: string, keepSidecars = false): Promise<void> {
  return new Promise((ok, fail) => {
    const args = [RESTORE_BACKUP, ...(keepSidecars ? ['--keep-sidecars'] : []), backup ?? '--delete', dbPath]
    const child = spawn(process.execPath, args, { stdio: 'pipe' })
    let err = ''
    child.stderr.on('data', (d) => {
      err += d
    })
    child.on('error', fail)
    child.on('close', (code) => (code === 0 ? ok() : fail(new Error(`restore exited ${code}: ${err}`))))
  })
}

const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
/** Whether upstream's checkout and the system Python are here to run `upstreamRewind`. */
export const HAS_UPSTREAM = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'hermes_state.py'))

/**
 * Upstream Hermes's own `SessionDB.rewind_to_message`, in a Python process, on `sessionId`'s `nth`-last user message
 * (test/fixtures/upstream-rewind.py). Resolves with what it rewound.
 */
export function upstreamRewind(
  dbPath: string,
  sessionId: string,
  nth = 1
): Promise<{ pid: number; target: number; rewound: number }> {
  return new Promise((ok, fail) => {
    execFile(
      PYTHON,
      [join(REPO, 'test/fixtures/upstream-rewind.py'), UPSTREAM, dbPath, sessionId, String(nth)],
      (err, stdout, stderr) => (err ? fail(new Error(`${err.message}: ${stderr}`)) : ok(JSON.parse(stdout)))
    )
  })
}
