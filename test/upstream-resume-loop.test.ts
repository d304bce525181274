// Upstream's own agent loop resuming a session (scripts/golden/resume_loop.py: `hermes --resume` loads the stored rows
// in id order and sends them): for the session upstream wrote itself, requests.json holds what it sent the model.
// A session Caduceus writes for the same conversation must replay in that order.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { MessagePage, TurnFinished } from '@shared/contract'
import { startScriptedProvider, type RecordedRequest, type ScriptReply } from '../src-main/agent/scripted'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import golden from './fixtures/upstream/resume-loop/requests.json'

type Sent = {
  role: string
  content: unknown
  tool_call_id?: string
  tool_calls?: Array<{ id: string; function: { name: string } }>
}
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const first = (golden.delegate.upstream.messages as Sent[])[1]!.content as string

// The golden's conversation: the parent's reply after the dispatch comes late, so the subagent finishes while the
// parent's turn still runs (the race that put the notice among that turn's rows).
function reply(req: RecordedRequest): ScriptReply {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const users = msgs.filter((m) => m.role === 'user').map((m) => String(m.content))
  if (users[0]?.startsWith('CHILD-COUNT')) return { text: 'one two three' }
  if (users.length > 1) return { text: 'The subagent counted: one two three.' }
  if (msgs.at(-1)?.role === 'tool') return { text: 'The subagent was dispatched.', delayMs: 400 }
  return {
    toolCalls: [{ id: 'call_deleg', name: 'delegate_task', arguments: { goal: 'CHILD-COUNT: count to three' } }]
  }
}

/** What a resumed upstream replays of a message: role, call pairing, and the text of everything but the notices. */
const shape = (m: Sent, notice: boolean) => ({
  role: m.role,
  ...(m.role === 'tool' || notice ? {} : { content: m.content }),
  ...(m.tool_call_id ? { toolCallId: m.tool_call_id } : {}),
  ...(m.tool_calls?.length ? { calls: m.tool_calls.map((c) => `${c.id}:${c.function.name}`) } : {})
})

describe("a session Caduceus wrote, as upstream's resume replays it", () => {
  it("a background delegation's notice follows the turn that dispatched it (its final reply first)", async () => {
    const provider = await startScriptedProvider({ handler: reply })
    const home = mkdtempSync(join(tmpdir(), 'cad-resume-loop-'))
    dirs.push(home)
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n`
    )
    const host = await createHost({ home, headless: true, log: createLogger() })
    try {
      let sessionId = ''
      let ended = 0
      const both = new Promise<void>((resolve) =>
        host.bus.subscribe((e) => {
          if (e.event === 'turn.finished' && (e.payload as TurnFinished).sessionId === sessionId && ++ended === 2)
            resolve()
        })
      )
      const r = await host.dispatcher.invoke('sessions.start', { profile: 'default', text: first })
      if (!r.ok) throw new Error(r.error.message)
      sessionId = (r.output as { sessionId: string }).sessionId
      await both
      const page = await host.dispatcher.invoke('sessions.messages', { profile: 'default', sessionId, limit: 50 })
      if (!page.ok) throw new Error(page.error.message)
      const stored = (page.output as MessagePage).items.map((m) =>
        shape(
          {
            role: m.role,
            content: m.content,
            ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
            ...(m.toolCalls ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, function: { name: c.name } })) } : {})
          },
          m.displayKind === 'async_delegation_complete'
        )
      )
      // upstream's request less its system prompt and the resumed turn's own message; its notice has its own words
      const sent = (golden.delegate.upstream.messages as Sent[]).slice(1, -1)
      expect(stored).toEqual(sent.map((m) => shape(m, String(m.content).startsWith('[ASYNC DELEGATION'))))
    } finally {
      await host.close()
      await provider.close()
    }
  })
})
