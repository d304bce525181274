// The home upstream Hermes's own agent loop wrote end to end (scripts/golden/agent_loop.py: AIAgent.run_conversation
// with its real tools, a background delegate_task and its subagent child, /title), read through the host's
// requests and compared with what upstream's own SessionDB readers return for it (golden.json).
import { cpSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { MessagePage, SessionCost, SessionDetail, SessionPage, SubagentList } from '@shared/contract'
import { createHost } from './create-host'
import { createLogger } from '../log/log'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'
import golden from '../../../test/fixtures/upstream/agent-loop/golden.json'

const GOLDEN = resolve(import.meta.dirname, '../../../test/fixtures/upstream/agent-loop')
const profile = 'default'

afterAll(cleanupTempDirs)

async function withHost(fn: (call: <T>(name: string, input: unknown) => Promise<T>) => Promise<void>): Promise<void> {
  const home = tempDir()
  cpSync(join(GOLDEN, 'state.db'), join(home, 'state.db'))
  const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const r = (await host.dispatcher.invoke(name as never, input as never)) as { ok: boolean; output?: T }
    expect(r.ok, `${name}: ${JSON.stringify(r)}`).toBe(true)
    return r.output as T
  }
  try {
    await fn(call)
  } finally {
    await host.close()
  }
}

const child = golden.list.find((s) => s.source === 'subagent')!

describe("a home upstream's agent loop wrote, through the host", () => {
  it("lists every session with upstream's titles, counts, tokens and parent link", async () => {
    await withHost(async (call) => {
      const { items } = await call<SessionPage>('sessions.list', { profile, includeChildren: true })
      const got = items.map((s) => ({
        id: s.id,
        parent: s.parentSessionId,
        title: s.title,
        messages: s.messageCount,
        toolCalls: s.toolCallCount,
        tokens: [s.tokens.input, s.tokens.output, s.tokens.cacheRead]
      }))
      const want = golden.list.map((s) => ({
        id: s.id,
        parent: s.parent_session_id,
        title: s.title,
        messages: s.message_count,
        toolCalls: s.tool_call_count,
        tokens: [s.input_tokens, s.output_tokens, s.cache_read_tokens]
      }))
      // by id: the list is ordered by last activity (upstream's dashboard "recent"), `hermes sessions list` by start
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
      expect(got.sort(byId)).toEqual(want.sort(byId))
      expect(items.find((s) => s.id === child.id)?.kind).toBe('delegate')
    })
  })

  it("reads each transcript as upstream's export holds it: roles, text, tool names and call ids, reasoning", async () => {
    await withHost(async (call) => {
      for (const [id, want] of Object.entries(golden.export_messages)) {
        const { items } = await call<MessagePage>('sessions.messages', { profile, sessionId: id, limit: 100 })
        // Rows upstream compacted in place (active 0, compacted 1) stay on the page, flagged; its export has the rest.
        const got = items
          .filter((m) => !m.compacted)
          .map((m) => ({
            role: m.role,
            content: m.content,
            tool_name: m.toolName,
            tool_call_id: m.toolCallId,
            reasoning: m.reasoning
          }))
        expect(got, id).toEqual(want)
      }
      const { items } = await call<MessagePage>('sessions.messages', {
        profile,
        sessionId: golden.ids.compress,
        limit: 100
      })
      expect(items.filter((m) => m.compacted).length).toBe(13)
    })
  })

  it("gives the subagent the same tokens on the Subagents page as in its parent's cost breakdown", async () => {
    await withHost(async (call) => {
      const { items } = await call<SubagentList>('subagents.list', { profile })
      const sub = items.find((s) => s.childSessionId === child.id)
      const cost = await call<SessionCost>('costs.session', { profile, sessionId: child.parent_session_id })
      const detail = await call<SessionDetail>('sessions.get', { profile, sessionId: child.id })
      expect(sub?.tokens).toEqual(cost.children.find((c) => c.childSessionId === child.id)?.tokens)
      expect(sub?.tokens).toEqual(detail.summary.tokens)
      expect(sub?.tokens.cacheRead).toBe(child.cache_read_tokens)
    })
  })
})
