/**
 * A large import (`sessions.import`, ~64 MiB by default: the contract's limit) into a home upstream keeps writing:
 * its time and this process's CPU for it (steadier than time on a loaded machine), the import's transactions
 * (store/import-batches.ts), this process's event-loop max delay while it runs, and — with
 * upstream's code at hand — how long upstream's own `append_message`, sent from another process every 250 ms
 * during the import, waited for the lock (upstream gives up after ~16 s with "database is locked").
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { SessionStore } from '../src-main/store'
import { hasUpstream, pythonBin, upstreamDir } from './list-after-write'

const round = (n: number) => Math.round(n * 100) / 100

export interface ImportBenchResult {
  chars: number
  sessions: number
  messagesPerSession: number
  longSession: number
  totalMs: number
  /** CPU this process spent on the import (user + system): steadier than wall time on a loaded machine. */
  cpuMs: number
  batches: number
  maxBatchSessions: number
  eventLoopMaxDelayMs: number
  eventLoopP99Ms: number
  /** Upstream's appends during the import; null without upstream's code. */
  upstream: { sent: number; ok: number; worstWaitMs: number; failed: string | null } | null
}

function jsonl(sessions: number, messages: number, longSession: number): string {
  const body = 'a1 b2 c3 d4 e5 f6 g7 h8 '.repeat(14)
  const lines: string[] = []
  for (let i = 0; i < sessions; i++)
    lines.push(
      JSON.stringify({
        id: `imp-${i}`,
        source: 'cli',
        started_at: 1.7e9 + i,
        // one conversation as long as an agent's day-long run, in the middle of the file
        messages: Array.from({ length: i === sessions >> 1 && longSession ? longSession : messages }, (_, k) => ({
          role: k % 2 ? 'assistant' : 'user',
          content: `${i} ${k} ${body}`,
          timestamp: 1.7e9 + i + k
        }))
      })
    )
  return lines.join('\n')
}

/** `longSession`: one session in the middle of the file has that many messages instead (0: none). */
export async function runImportBench(
  opts: { sessions?: number; messages?: number; longSession?: number } = {}
): Promise<ImportBenchResult> {
  const sessions = opts.sessions ?? 1620
  const messagesPerSession = opts.messages ?? 100
  const longSession = opts.longSession ?? 0
  const dir = mkdtempSync(join(tmpdir(), 'cad-import-bench-'))
  const path = join(dir, 'state.db')
  const store = new SessionStore(path, { profile: 'default' })
  try {
    await store.createSession('seed', 'cli')
    const content = jsonl(sessions, messagesPerSession, longSession)
    const py = hasUpstream()
      ? spawn(pythonBin(), [resolve(import.meta.dirname, 'upstream-writer.py'), path, 'upstream-during-import'], {
          env: { ...process.env, HERMES_UPSTREAM: upstreamDir() }
        })
      : null
    const replies = py ? createInterface({ input: py.stdout })[Symbol.asyncIterator]() : null
    let failed: string | null = null
    py?.stderr.on('data', (d: Buffer) => (failed = (failed ?? '') + String(d)))
    if (replies && (await replies.next()).value !== 'ready') throw new Error(`upstream writer: ${failed}`)
    const sizes: number[] = []
    const off = store.onLocalChange((e) => sizes.push(e.sessionIds.length))
    const eld = monitorEventLoopDelay({ resolution: 5 })
    eld.enable()
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    let done = false
    const importing = store.importJsonl(content, 100_000).finally(() => (done = true))
    // upstream appends one message at a time while the import runs, and each waits for the lock as upstream waits
    const appends = (async () => {
      let sent = 0
      let ok = 0
      let worstWaitMs = 0
      while (replies && !done && failed === null) {
        await new Promise((r) => setTimeout(r, 250))
        const t = performance.now()
        py!.stdin.write('append\n')
        sent++
        const r = await replies.next()
        if (r.done) break
        ok++
        worstWaitMs = Math.max(worstWaitMs, performance.now() - t)
      }
      return { sent, ok, worstWaitMs: round(worstWaitMs) }
    })()
    const summary = await importing
    const totalMs = round(performance.now() - t0)
    const cpu = process.cpuUsage(cpu0)
    eld.disable()
    off()
    const up = await appends
    py?.stdin.end()
    if (summary.imported !== sessions) throw new Error(`imported ${summary.imported} of ${sessions}`)
    return {
      chars: content.length,
      sessions,
      messagesPerSession,
      longSession,
      totalMs,
      cpuMs: round((cpu.user + cpu.system) / 1000),
      batches: sizes.length,
      maxBatchSessions: Math.max(...sizes),
      eventLoopMaxDelayMs: round(eld.max / 1e6),
      eventLoopP99Ms: round(eld.percentile(99) / 1e6),
      upstream: py ? { ...up, failed: failed ? String(failed).trim().split('\n').at(-1)! : null } : null
    }
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [sessions, messages, longSession] = process.argv.slice(2).map(Number)
  console.log(JSON.stringify(await runImportBench({ sessions, messages, longSession }), null, 2))
}
