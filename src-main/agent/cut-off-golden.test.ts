// Replies cut short, replayed byte for byte from what upstream's own loop was given (scripts/golden/stream_cutoff.py):
// a real local HTTP server (dropping the connection where the golden says so) → agent → real state.db, compared
// with what upstream did — how many requests, the rows it stored, and its result (completed / partial, answer).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { sse, startRouteServer, type RouteServer } from './providers/test-fixtures/route-server'
import { streamRetryWaitMs } from './stream-retry'
import { makeKit, recordingTool, testRuntime, type Kit } from './test-fixtures/kit'
import type { AgentDelta } from './types'

interface Scenario {
  replies: Array<{ body: string; drop: boolean }>
  requests: number
  rows: Array<[string, string | null, string | null]>
  result: { final_response: string | null; completed: boolean; partial: boolean | null; error: string | null }
  /** Seconds between upstream's requests (kept where its waits are the subject). */
  gaps?: number[]
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/stream-cutoff/golden.json'), 'utf8')
) as Record<string, Scenario>

let kit: Kit
let provider: RouteServer
afterEach(async () => {
  await provider?.close()
  await kit?.cleanup()
})

/** Our note on a part whose tool call was cut, as the golden masks upstream's: `[note]`. */
const masked = (text: string | null) =>
  text?.replace(/\n\n\[The stream broke off in the middle of [^\]]*\]/g, '\n\n[note]')

describe("replies cut short, as upstream's loop handled the same bytes", () => {
  for (const [name, g] of Object.entries(golden)) {
    it(name, async () => {
      kit = await makeKit()
      kit.tools.register(recordingTool('terminal', () => 'hi').def)
      provider = await startRouteServer((_req, res, n) => {
        const reply = g.replies[Math.min(n, g.replies.length) - 1]!
        sse(res)
        if (!reply.drop) return void res.end(reply.body)
        res.write(reply.body, () => setTimeout(() => res.socket?.destroy(), 20))
      })
      // 5 model calls are enough for every scenario, as for upstream: a request asked again after a stream cut
      // before any text or inside a tool call is the same call, not another one of the budget
      const agent = kit.makeAgent({ runtime: testRuntime(provider.baseUrl), maxIterations: 5 })
      const deltas: AgentDelta[] = []
      const result = await agent.runTurn(`CUTOFF-${name}: go`, { onDelta: (d) => deltas.push(d) })
      expect(provider.hits).toBe(g.requests)
      const rows = kit.messages('S1')
      expect(rows.map((r) => [r.role, r.finish_reason])).toEqual(g.rows.map((r) => [r[0], r[2]]))
      // assistant text as upstream stored it (upstream trims a kept part; whitespace aside, the same)
      expect(rows.map((r) => (r.role === 'assistant' ? masked(r.content)?.trim() : null))).toEqual(
        g.rows.map((r) => (r[0] === 'assistant' ? r[1]?.trim() : null))
      )
      // every request to go on shows as a notice in the transcript, not as the user's words
      expect(
        rows
          .slice(1)
          .filter((r) => r.role === 'user')
          .map((r) => r.display_kind)
      ).toEqual(
        g.rows
          .slice(1)
          .filter((r) => r[0] === 'user')
          .map(() => 'continuation_notice')
      )
      // upstream's completed / partial: a partial turn ends status error, partial, with its text as the answer
      expect([result.status, result.partial ?? false]).toEqual(
        g.result.completed ? ['completed', false] : ['error', g.result.partial === true]
      )
      // a failed turn: upstream's final_response is its own error text; ours is the turn's error
      if (g.result.completed || g.result.partial) {
        expect(masked(result.finalText)?.trim()).toBe(g.result.final_response?.trim())
      } else expect(result.error).toBeTruthy()
      if (g.gaps) {
        // the waits fall where upstream's did, and upstream's lie within our schedule at its own base (2 s), give
        // or take its overhead between requests (sleeping in 0.2 s steps, rebuilding its client)
        const waits = deltas
          .filter((d) => d.kind === 'notice')
          .map((d) => (/ in (\d+) ms \(attempt/.exec(d.text ?? '') ? 1 : 0))
        expect(waits).toEqual(g.gaps.map((gap) => (gap >= 1.5 ? 1 : 0)))
        g.gaps.forEach((gap, k) => {
          if (gap < 1.5) return
          const lo = streamRetryWaitMs(k + 1, 2000, () => 0) / 1000
          const hi = streamRetryWaitMs(k + 1, 2000, () => 1) / 1000
          expect([k, gap >= lo - 0.1 && gap <= hi + 1]).toEqual([k, true])
        })
      }
    })
  }
})
