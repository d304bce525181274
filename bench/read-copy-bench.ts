/**
 * A home this user may read but not write (another user's ~/.hermes), of ~300 MB: the host reads it from a private
 * copy (src-main/store/read-copy.ts) and takes a new one each time the original changes while no program holds it
 * open. A real headless host process runs as another user (uid 65534; the bench must run as root); the owner (root)
 * appends a message through upstream's SessionDB to a copy of the file and renames it over state.db (so the host
 * never catches the writer holding the file open, when it would read it in place: every write is a re-copy, as
 * after an upstream process that wrote and exited between two looks); the host's event-loop max delay is read
 * over the window from that write until the host serves the new message (plus a moment for the swap's tail), and
 * over an equal window without a write (the machine's own load on a shared box).
 *
 *   npx tsx bench/read-copy-bench.ts [HOME] [WRITES]   (HOME: a bench home to reuse, written to; else one is made)
 *   npm run bench -- --only readcopy
 *
 * Measured (294 MB state.db, 3 writes per run, paired runs on the shared 2-core box): event-loop max per write
 * 463–700 ms with the copy taken on the loop (copyFileSync), 24–88 ms with it taken off the loop (the equal windows
 * without a write: 7–47 ms).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveHost, type ServedHost } from '../test/fixtures/serve-host'
import { eldOf } from './host-bench'

const SID = 'bench-read-copy'
const OTHER = { uid: 65534, gid: 65534 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (n: number) => Math.round(n * 10) / 10

/**
 * The owner's program: one message through upstream's SessionDB on a copy of the file, closed (checkpoint, -wal and
 * -shm go), then renamed over state.db: the change lands whole, with no moment where the host sees it held open.
 */
function ownerAppends(db: string): void {
  upstream(db, [
    'tmp = sys.argv[1] + ".next"',
    'shutil.copyfile(sys.argv[1], tmp)',
    'db = hs.SessionDB(Path(tmp))',
    `db.append_message("${SID}", "user", f"owner {time.time()}")`,
    'db.close()',
    'os.chmod(tmp, 0o644)',
    // The old file stays open across the rename, so its 300 MB are freed at the close after it: freed inside the
    // rename (with online discard, ~0.1 s), they hold the folder's lock, and the host's next open there (SQLite's try
    // at the -wal) waits for it: a cost of this bench's rename, which no upstream process's exit has.
    'keep = os.open(sys.argv[1], os.O_RDONLY)',
    'os.replace(tmp, sys.argv[1])',
    'os.close(keep)'
  ])
}

/** The bench's session, in place; upstream's close, the last connection, takes -wal and -shm with it. */
function ownerCreates(db: string): void {
  upstream(db, ['db = hs.SessionDB(Path(sys.argv[1]))', `db.create_session("${SID}", "cli")`, 'db.close()'])
}

function upstream(db: string, lines: string[]): void {
  const head = [
    'import os, shutil, sys, time',
    'sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))',
    'import hermes_state as hs',
    'from pathlib import Path'
  ]
  execFileSync('python3', ['-c', [...head, ...lines].join('\n'), db])
}

async function messageCount(host: ServedHost): Promise<number> {
  const r = await host.call('sessions.messages', { profile: 'default', sessionId: SID, afterId: 0 })
  return r.ok ? (r.output.items as unknown[]).length : -1
}

export async function runReadCopyBench(opts: { home?: string; writes?: number } = {}) {
  if (process.getuid?.() !== 0) throw new Error('the read-copy bench runs the host as another user: run it as root')
  const writes = opts.writes ?? 3
  const scratch = mkdtempSync(join(tmpdir(), 'cad-read-copy-bench-'))
  chmodSync(scratch, 0o777) // the host's HOME, TMPDIR (its copies) and logs
  const home = opts.home ?? join(scratch, 'home')
  let host: ServedHost | null = null
  try {
    if (!existsSync(join(home, 'state.db')))
      execFileSync('python3', ['bench/upstream-home.py', home, '6000', '50'], { stdio: 'ignore' })
    const db = join(home, 'state.db')
    ownerCreates(db)
    execFileSync('chmod', ['-R', 'u+rwX,go+rX,go-w', home]) // readable by the host's user, not writable
    const sizeMb = Math.round(Number(execFileSync('stat', ['-c', '%s', db], { encoding: 'utf8' })) / 2 ** 20)
    host = await serveHost(home, {
      probes: true,
      logDir: join(scratch, 'logs'),
      user: OTHER,
      env: { CADUCEUS_BENCH_ELD: '1', HOME: scratch, TMPDIR: scratch, CADUCEUS_DATA_DIR: join(scratch, 'data') }
    })
    let count = await messageCount(host)
    if (count < 0) throw new Error('the host could not read the home')
    await sleep(1500)
    await eldOf(host) // reset after start-up
    const runs: Array<{ followedMs: number; maxMs: number; controlMaxMs: number }> = []
    for (let i = 0; i < writes; i++) {
      await eldOf(host)
      const t = performance.now()
      ownerAppends(db)
      while ((await messageCount(host)) === count) await sleep(25)
      count++
      const followedMs = performance.now() - t
      await sleep(300) // the swap's tail: the old copy closed and dropped, the watcher's diff
      const { maxMs } = await eldOf(host)
      const windowMs = performance.now() - t
      await sleep(windowMs) // control: the same window, no write
      const control = await eldOf(host)
      runs.push({ followedMs: round(followedMs), maxMs: round(maxMs), controlMaxMs: round(control.maxMs) })
    }
    return {
      stateDbMb: sizeMb,
      worstEventLoopMaxMs: Math.max(...runs.map((r) => r.maxMs)),
      worstControlMaxMs: Math.max(...runs.map((r) => r.controlMaxMs)),
      runs
    }
  } finally {
    await host?.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [home, writes] = process.argv.slice(2)
  console.log(JSON.stringify(await runReadCopyBench({ home, writes: writes ? Number(writes) : undefined })))
}
