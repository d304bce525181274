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

/** A desk-chat session on a scripted provider; resolves with its stored rows once `turns` turns have ended in it. */
async function deskSession(handler: (req: RecordedRequest) => ScriptReply, yaml: string, text: string, turns: number) {
  const provider = await startScriptedProvider({ handler })
  const home = mkdtempSync(join(tmpdir(), 'cad-resume-loop-'))
  dirs.push(home)
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n${yaml}`
  )
  const host = await createHost({ home, headless: true, log: createLogger() })
  try {
    let sessionId = ''
    let ended = 0
    const done = new Promise<void>((resolve) =>
      host.bus.subscribe((e) => {
        if (e.event === 'turn.finished' && (e.payload as TurnFinished).sessionId === sessionId && ++ended === turns)
          resolve()
      })
    )
    const r = await host.dispatcher.invoke('sessions.start', { profile: 'default', text })
    if (!r.ok) throw new Error(r.error.message)
    sessionId = (r.output as { sessionId: string }).sessionId
    await done
    const page = await host.dispatcher.invoke('sessions.messages', { profile: 'default', sessionId, limit: 50 })
    if (!page.ok) throw new Error(page.error.message)
    return (page.output as MessagePage).items
  } finally {
    await host.close()
    await provider.close()
  }
}

describe("a session Caduceus wrote, as upstream's resume replays it", () => {
  it("a background delegation's notice follows the turn that dispatched it (its final reply first)", async () => {
    const items = await deskSession(reply, '', first, 2)
    const stored = items.map((m) =>
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
  })

  it('a finished delegation whose notice waits for the turn holds no background slot', async () => {
    // One slot: A ends while the turn runs, so dispatching B in the same turn must find the slot free.
    const handler = (req: RecordedRequest): ScriptReply => {
      const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
      const users = msgs.filter((m) => m.role === 'user').map((m) => String(m.content))
      if (users[0]?.startsWith('CHILD-')) return { text: 'done' }
      if (users.length > 1) return { text: 'noted' }
      const results = msgs.filter((m) => m.role === 'tool').length
      const dispatch = (goal: string) => ({ toolCalls: [{ name: 'delegate_task', arguments: { goal } }] })
      if (results === 0) return dispatch('CHILD-A')
      if (results === 1) return { ...dispatch('CHILD-B'), delayMs: 400 }
      return { text: 'Both dispatched.' }
    }
    const items = await deskSession(handler, 'delegation:\n  max_concurrent_children: 1\n', 'two in turn', 1)
    const results = items
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content ?? '{}') as { status?: string })
    expect(results.map((r) => r.status)).toEqual(['dispatched', 'dispatched'])
  })
})
