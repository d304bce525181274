/**
 * Rollback-journal bench (issue 21 item 4): a real headless host process on the golden v21 home switched to
 * journal_mode=DELETE (config `database.journal_mode: delete`); another process holds BEGIN IMMEDIATE, then
 * BEGIN EXCLUSIVE (readers blocked), while reads, `/api/health` and a send keep arriving. Prints the host's
 * event-loop max delay (monitorEventLoopDelay inside the host), the worst health round trip, the worst read
 * latency and what became of the send.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdJournalLock, makeDeleteJournalHome } from '../test/fixtures/journal-lock'
import { serveHost, type ServedHost } from '../test/fixtures/serve-host'
import { eldOf } from './host-bench'

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
    makeDeleteJournalHome(root)
    host = await serveHost(root, { probes: true, logDir, env: { CADUCEUS_BENCH_ELD: '1' } })
    await host.call('sessions.get', { profile: 'default', sessionId: SID })
    await sleep(1500)
    await eldOf(host) // reset after start-up
    // Control: the same polling with no lock, so the machine's own load can be read off (a shared box).
    const control = await poll(
      host,
      sleep(immediateMs).then(() => undefined)
    )
    const controlEld = await eldOf(host)

    const { phase } = holdJournalLock(join(root, 'state.db'), immediateMs, exclusiveMs)
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
