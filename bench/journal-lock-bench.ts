/**
 * Rollback-journal bench (issue 21 item 4): a real headless host process on the golden v21 home switched to
 * journal_mode=DELETE (config `database.journal_mode: delete`); another process holds BEGIN IMMEDIATE, then
 * BEGIN EXCLUSIVE (readers blocked), while reads, `/api/health` and a send keep arriving. Prints the host's
 * event-loop max delay (monitorEventLoopDelay inside the host), the worst health round trip, the worst read
 * latency and what became of the send.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { serveHost, type ServedHost } from '../test/fixtures/serve-host'
import { eldOf } from './host-bench'

const repo = resolve(import.meta.dirname, '..')
const SID = '20260101_090000_aa01'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (n: number) => Math.round(n * 100) / 100

async function poll(host: ServedHost, until: Promise<void>) {
  let done = false
  void until.then(() => (done = true))
  let worstHealthMs = 0
  let worstReadMs = 0
  let reads = 0
  let failedReads = 0
  while (!done) {
    worstHealthMs = Math.max(worstHealthMs, await host.health())
    const t = performance.now()
    const r = await host.call('sessions.messages', { profile: 'default', sessionId: SID })
    worstReadMs = Math.max(worstReadMs, performance.now() - t)
    reads++
    if (!r.ok) failedReads++
    await sleep(20)
  }
  return { worstHealthMs: round(worstHealthMs), worstReadMs: round(worstReadMs), reads, failedReads }
}

export async function runJournalLockBench(opts: { immediateMs?: number; exclusiveMs?: number } = {}) {
  const immediateMs = opts.immediateMs ?? 4000
  const exclusiveMs = opts.exclusiveMs ?? 4000
  const root = mkdtempSync(join(tmpdir(), 'cad-journal-bench-'))
  const logDir = mkdtempSync(join(tmpdir(), 'cad-journal-bench-logs-'))
  let host: ServedHost | null = null
  try {
    cpSync(join(repo, 'test/fixtures/upstream/v21-two-profiles'), root, { recursive: true })
    const db = new Database(join(root, 'state.db'))
    db.pragma('journal_mode = DELETE')
    db.close()
    writeFileSync(
      join(root, 'config.yaml'),
      'model:\n  default: demo-model\n  provider: demo\n  base_url: http://127.0.0.1:0/v1\ndatabase:\n  journal_mode: delete\n'
    )
    host = await serveHost(root, { logDir, env: { CADUCEUS_BENCH_ELD: '1' } })
    await host.call('sessions.get', { profile: 'default', sessionId: SID })
    await sleep(1500)
    await eldOf(host) // reset after start-up
    // Control: the same polling with no lock, so the machine's own load can be read off (a shared box).
    const control = await poll(
      host,
      sleep(immediateMs).then(() => undefined)
    )
    const controlEld = await eldOf(host)

    const child = spawn(
      process.execPath,
      [
        join(repo, 'test/fixtures/journal-lock-holder.mjs'),
        join(root, 'state.db'),
        String(immediateMs),
        String(exclusiveMs)
      ],
      { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] }
    )
    const lines = createInterface({ input: child.stdout! })
    const phase = (name: string) => new Promise<void>((ok) => lines.on('line', (l) => l === name && ok()))
    const exclusive = phase('exclusive')
    const released = phase('released')
    await phase('immediate')
    const sendAtImmediate = host.call('sessions.resume', {
      profile: 'default',
      sessionId: SID,
      text: 'sent under IMMEDIATE'
    })
    const underImmediate = await poll(host, exclusive)
    const sendAtExclusive = host.call('sessions.resume', {
      profile: 'default',
      sessionId: SID,
      text: 'sent under EXCLUSIVE'
    })
    const underExclusive = await poll(host, released)
    const eld = await eldOf(host)
    const outcome = (r: { ok: boolean; error?: { message: string } }) =>
      r.ok ? 'saved' : `refused: ${r.error?.message}`
    return {
      immediateMs,
      exclusiveMs,
      eventLoopMaxDelayMs: round(eld.maxMs),
      eventLoopP99Ms: round(eld.p99Ms),
      noLockControl: {
        eventLoopMaxDelayMs: round(controlEld.maxMs),
        eventLoopP99Ms: round(controlEld.p99Ms),
        ...control
      },
      underImmediate,
      underExclusive,
      sendUnderImmediate: outcome(await sendAtImmediate),
      sendUnderExclusive: outcome(await sendAtExclusive)
    }
  } finally {
    await host?.stop()
    rmSync(root, { recursive: true, force: true })
    rmSync(logDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runJournalLockBench().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e)
      process.exit(1)
    }
  )
}
