import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeKit, recordingTool, until, type Kit } from './test-fixtures/kit'
import type { AgentMemory } from './types'
import { cutReplyText } from './stopped-text'
import { NO_REPLY_TEXT } from './empty-reply'
import { STOPPED_REPLY } from '@shared/contract/stopped-turn'

/** What upstream hands on after a turn with no reply (scripts/golden/empty_reply_handoff.py). */
const handoffGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/empty-reply-handoff/cases.json'), 'utf8')
) as {
  cases: Array<{
    turn: { completed: boolean; finalIsSentinel: boolean; finalEmpty: boolean }
    memorySync: Array<{ user: string; answerIsFinal: boolean }>
  }>
}

const stoppedGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/stopped-reply-text/cases.json'), 'utf8')
) as { cases: Array<[string, string]> }

let kit: Kit
afterEach(async () => {
  await kit?.cleanup()
})

const loopForever = () => ({ toolCalls: [{ name: 'tick', arguments: {} }] })

describe('Agent: loop limits and control', () => {
  it('the tool loop stops at maxIterations model calls, then asks once without tools for a final answer', async () => {
    const handler = (req: { body: unknown }) =>
      (req.body as { tools?: unknown[] }).tools?.length ? loopForever() : { text: ' Summary so far. ' }
    kit = await makeKit([], { handler })
    kit.tools.register(recordingTool('tick').def)
    const r = await kit.makeAgent({ maxIterations: 3 }).runTurn('loop')
    expect(r.status).toBe('completed')
    expect(r.exitReason).toBe('max_iterations')
    expect(r.finalText).toBe('Summary so far.')
    expect(kit.server.requests).toHaveLength(4)
    const last = kit.server.requests[3]!.body as { tools?: unknown; messages: Array<{ role: string; content: string }> }
    expect(last.tools).toBeUndefined()
    expect(last.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^\[System: .*final answer/)
    })
    // the budget's calls; the summary's is not one of them (upstream's api_call_count)
    expect(r.apiCalls).toBe(3)
    // user + 3 × (assistant + tool): every call still has its result; then the request and the answer.
    expect(kit.messages('S1').map((m) => m.role)).toEqual([
      'user',
      ...Array(3).fill(['assistant', 'tool']).flat(),
      'user',
      'assistant'
    ])
  })

  it('a Stop during the summary call at the limit keeps what was shown of it, as a stopped reply is kept', async () => {
    kit = await makeKit([
      { toolCalls: [{ name: 'tick', arguments: {}, id: 't1' }] },
      { text: 'So far: one tick', stall: true }
    ])
    kit.tools.register(recordingTool('tick').def)
    const agent = kit.makeAgent({ maxIterations: 1 })
    const r = await agent.runTurn('loop', {
      onDelta: (d) => {
        if (d.kind === 'text') agent.interrupt()
      }
    })
    expect(r).toMatchObject({ status: 'interrupted', finalText: 'So far: one tick' })
    const rows = kit.messages('S1')
    expect(rows.map((m) => [m.role, m.finish_reason])).toEqual([
      ['user', null],
      ['assistant', 'tool_calls'],
      ['tool', null],
      ['user', null],
      ['assistant', 'interrupted']
    ])
    expect(rows[4]!.content).toBe('So far: one tick')
  })

  it('a Stop during the summary call before any of it came: the prompt is answered with the stopped reply, so the next message is a turn of its own', async () => {
    kit = await makeKit([
      { toolCalls: [{ name: 'tick', arguments: {}, id: 't1' }] },
      { text: '', stall: true },
      { text: 'next answer' }
    ])
    kit.tools.register(recordingTool('tick').def)
    const agent = kit.makeAgent({ maxIterations: 1 })
    const turn = agent.runTurn('loop')
    await until(() => kit!.server.requests.length === 2)
    agent.interrupt()
    expect((await turn).status).toBe('interrupted')
    expect(kit.messages('S1').map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant'])
    expect(kit.messages('S1').at(-1)!.content).toBe(STOPPED_REPLY)
    expect(await agent.runTurn('what next?')).toMatchObject({ status: 'completed', finalText: 'next answer' })
    const last = (kit.server.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages
    expect(last.at(-1)).toMatchObject({ role: 'user', content: 'what next?' })
  })

  it('steer folds in at the boundary after the in-flight tool call completes', async () => {
    kit = await makeKit([{ toolCalls: [{ name: 'work', arguments: {}, id: 'w1' }] }, { text: 'adjusted answer' }])
    let release!: () => void
    const started: string[] = []
    kit.tools.register(
      recordingTool('work', async () => {
        started.push('work')
        await new Promise<void>((r) => {
          release = r
        })
        return 'worked'
      }).def
    )
    const agent = kit.makeAgent()
    const turn = agent.runTurn('do the work')
    await until(() => started.length === 1, 'tool start')
    expect(agent.steer('actually, make it blue')).toBe(true)
    // The tool is still running: nothing was folded in yet.
    expect(kit.messages('S1').map((m) => m.role)).toEqual(['user', 'assistant'])
    release()
    const r = await turn
    expect(r.status).toBe('completed')
    const rows = kit.messages('S1')
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant'])
    expect(rows[3]).toMatchObject({ content: 'actually, make it blue', display_kind: 'steer' })
    expect(kit.server.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'actually, make it blue'
    })
  })

  it('interrupt mid-stream ends the turn interrupted and keeps what was saved', async () => {
    kit = await makeKit([
      { toolCalls: [{ name: 'tick', arguments: {}, id: 't1' }] },
      { text: 'partial answer', stall: true }
    ])
    kit.tools.register(recordingTool('tick').def)
    const agent = kit.makeAgent()
    const r = await agent.runTurn('start', {
      onDelta: (d) => {
        if (d.kind === 'text') agent.interrupt()
      }
    })
    expect(r.status).toBe('interrupted')
    expect(r.error).toBeUndefined()
    const rows = kit.messages('S1')
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(rows[3]!.finish_reason).toBe('interrupted')
    expect(rows[3]!.content!.length).toBeGreaterThan(0)
    expect(kit.store.getSession('S1')!.messageCount).toBe(4)
    expect(agent.running).toBe(false)
    // The agent is usable again afterwards.
    kit.server.push({ text: 'fresh' })
    expect((await agent.runTurn('again')).status).toBe('completed')
  })

  it("a stopped reply is kept without its reasoning blocks, as upstream's stop path keeps it", async () => {
    kit = await makeKit([{ text: '<think>private plan</think>partial answer so far\n<think>more musing', stall: true }])
    const agent = kit.makeAgent()
    let shown = ''
    let reasoning = ''
    const r = await agent.runTurn('start', {
      onDelta: (d) => {
        if (d.kind === 'reasoning') reasoning += d.text
        // the unclosed block after the newline is never shown: the stop lands once the reply's words are out
        if (d.kind === 'text' && (shown += d.text).includes('so far\n')) agent.interrupt()
      }
    })
    expect(r.status).toBe('interrupted')
    // the desk is shown the reasoning as reasoning, never a tag or a piece of one as reply text
    expect(shown).toBe('partial answer so far\n')
    expect(reasoning).toBe('private plan\n\nmore musing')
    expect(kit.messages('S1').map((m) => [m.role, m.content])).toEqual([
      ['user', 'start'],
      ['assistant', 'partial answer so far']
    ])
    // Upstream's rule on each shape of cut (scripts/golden/stopped_reply_text.py, run through its own scrubber and
    // strip_think_blocks): closed pairs of every tag anywhere, an unclosed block from its line's start, stray tags.
    for (const [raw, kept] of stoppedGolden.cases) expect([raw, cutReplyText(raw).kept]).toEqual([raw, kept])
  })

  it('a caller AbortSignal interrupts too', async () => {
    kit = await makeKit([{ text: 'never finishes', stall: true }])
    const ac = new AbortController()
    const r = await kit.makeAgent().runTurn('x', {
      signal: ac.signal,
      onDelta: (d) => {
        if (d.kind === 'text') ac.abort()
      }
    })
    expect(r.status).toBe('interrupted')
  })

  it('releaseClients drops the client (soft) and the next turn recreates it', async () => {
    kit = await makeKit([{ text: 'one' }, { text: 'two' }])
    const agent = kit.makeAgent()
    await agent.runTurn('first')
    expect(agent.client).not.toBeNull()
    agent.releaseClients()
    expect(agent.client).toBeNull()
    expect(agent.sessionMessages).toHaveLength(2) // session state kept
    // The gateway also clears the history after a soft release; the agent reloads it from the store.
    agent.sessionMessages = []
    const r = await agent.runTurn('second')
    expect(r.status).toBe('completed')
    expect(agent.client).not.toBeNull()
    expect(kit.server.requests[1]!.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'first',
      'one',
      'second'
    ])
  })

  it('close is hard: stops a running turn, shuts memory down, and later turns throw', async () => {
    kit = await makeKit([{ text: 'streaming…', stall: true }])
    let shutdown = 0
    const agent = kit.makeAgent({
      memory: {
        shutdownAll: () => {
          shutdown++
        }
      }
    })
    const turn = agent.runTurn('go')
    await until(() => kit.server.requests.length === 1, 'request')
    await agent.close()
    expect((await turn).status).toBe('interrupted')
    expect(agent.client).toBeNull()
    expect(agent.closed).toBe(true)
    expect(shutdown).toBe(1)
    await expect(agent.runTurn('more')).rejects.toMatchObject({ name: 'AgentClosedError', message: 'agent is closed' })
    expect(agent.steer('x')).toBe(false)
  })

  it('malformed replies and HTTP 500 end the turn as error without crashing', async () => {
    for (const reply of [
      { malformed: 'bad-json' as const },
      { error: 500 },
      { malformed: 'garbage' as const },
      { malformed: 'bad-choices' as const }
    ]) {
      kit = await makeKit([reply])
      const agent = kit.makeAgent()
      const r = await agent.runTurn('hi')
      expect(r.status).toBe('error')
      expect(r.error).toMatch(/malformed|HTTP 500/)
      expect(r.error).not.toContain('sk-test')
      expect(kit.messages('S1')[0]).toMatchObject({ role: 'user', content: 'hi' })
      expect(agent.running).toBe(false)
      await kit.cleanup()
    }
    kit = await makeKit([])
  })

  it('a bad base URL is an error result and the user message is still saved', async () => {
    kit = await makeKit([])
    const r = await kit
      .makeAgent({ runtime: { model: 'm', provider: 'x', baseUrl: 'nope', apiMode: 'chat_completions' } })
      .runTurn('hello')
    expect(r.status).toBe('error')
    expect(r.error).toContain('base URL')
    expect(kit.messages('S1').map((m) => m.role)).toEqual(['user'])
  })

  it('the inactivity watchdog aborts a turn stuck waiting on the model', async () => {
    kit = await makeKit([{ text: 'starts then hangs', stall: true }])
    const r = await kit.makeAgent({ inactivityTimeoutSec: 0.2 }).runTurn('x')
    expect(r.status).toBe('error')
    expect(r.exitReason).toBe('inactivity')
    expect(r.error).toContain('no activity')
  })

  it('refuses a second concurrent turn and tracks activity', async () => {
    kit = await makeKit([{ text: 'slow', delayMs: 100 }])
    const agent = kit.makeAgent()
    const first = agent.runTurn('a')
    await expect(agent.runTurn('b')).rejects.toThrow(/already running/)
    await first
    expect(agent.lastActivityDesc).toBe('turn completed')
    expect(agent.lastActivityProvenance).toBe('turn')
    expect(agent.lastActivityTs).toBeGreaterThan(Date.now() - 60_000)
  })

  it("a model that only reasons: upstream's 2 prefill asks and 3 retries, told in notices, then no answer and no row", async () => {
    kit = await makeKit([], { handler: () => ({ text: '', reasoning: 'still thinking' }) })
    const notices: string[] = []
    const r = await kit
      .makeAgent()
      .runTurn('think only', { onDelta: (d) => void (d.kind === 'notice' && notices.push(d.text!)) })
    expect([r.status, r.finalText, r.apiCalls]).toEqual(['completed', NO_REPLY_TEXT, 6])
    // the prefill asks carry an empty assistant turn each (its reasoning is not sent back); none is stored
    const sent = kit.server.requests.map((q) =>
      (q.body.messages as Array<{ role: string }>).filter((m) => m.role !== 'system')
    )
    expect(sent.map((m) => m.length)).toEqual([1, 2, 3, 3, 3, 3])
    expect(sent[2]!.slice(1)).toEqual([
      { role: 'assistant', content: '' },
      { role: 'assistant', content: '' }
    ])
    expect(kit.messages('S1').map((m) => m.role)).toEqual(['user'])
    expect(notices).toHaveLength(6)
    expect(notices.at(-1)).toBe(NO_REPLY_TEXT)
  })

  it("a turn with no reply hands its explanation to the memory sync as the answer, as upstream's default does", async () => {
    // Upstream swaps its own explanation in for the "(empty)" sentinel before its providers' sync (golden
    // empty-reply-handoff; its display.turn_completion_explainer, on by default), and the turn still completes.
    const [upstream] = handoffGolden.cases
    expect(upstream!.turn).toEqual({ completed: true, finalIsSentinel: false, finalEmpty: false })
    kit = await makeKit([], { handler: () => ({ text: '' }) })
    let synced: unknown[] = []
    const memory: AgentMemory = { syncAll: (u, a) => void (synced = [u, a]) }
    const r = await kit.makeAgent({ memory }).runTurn('hello there')
    expect(r.status).toBe('completed')
    expect(synced).toEqual([upstream!.memorySync[0]!.user, upstream!.memorySync[0]!.answerIsFinal ? r.finalText : null])
    expect(r.finalText).toBe(NO_REPLY_TEXT)
  })

  it('reasoningConfig is mutable in place between turns', async () => {
    kit = await makeKit([{ text: 'a' }, { text: 'b' }])
    const agent = kit.makeAgent({ reasoningConfig: { effort: 'low' } })
    await agent.runTurn('one')
    agent.reasoningConfig!.effort = 'high'
    await agent.runTurn('two')
    expect(kit.server.requests.map((r) => r.body.reasoning_effort)).toEqual(['low', 'high'])
  })
})

describe('Agent: memory hooks', () => {
  it('calls onTurnStart, injects prefetch as request-only context, adds the prompt block, and syncs after the turn', async () => {
    kit = await makeKit([{ text: 'noted' }])
    const calls: string[] = []
    let synced: unknown[] = []
    const memory: AgentMemory = {
      onTurnStart: (n, msg) => {
        calls.push(`turn:${n}:${msg}`)
      },
      prefetchAll: async (q) => {
        calls.push(`prefetch:${q}`)
        return 'user likes tea'
      },
      buildSystemPrompt: () => 'MEMORY BLOCK',
      syncAll: (u, a, o) => {
        synced = [u, a, o?.sessionId]
      }
    }
    const r = await kit.makeAgent({ memory, systemPrompt: 'base' }).runTurn('what do I like?')
    expect(r.status).toBe('completed')
    expect(calls).toEqual(['turn:1:what do I like?', 'prefetch:what do I like?'])
    const sent = kit.server.requests[0]!.body.messages
    expect(sent[0]).toEqual({ role: 'system', content: 'base\n\nMEMORY BLOCK' })
    expect(sent[1].content).toMatch(
      /^what do I like\?\n\n<memory-context>\n\[System note: [^\n]*\]\n\nuser likes tea\n<\/memory-context>$/
    )
    // Never persisted: the stored user message is exactly what the user typed.
    expect(kit.messages('S1')[0]!.content).toBe('what do I like?')
    expect(synced).toEqual(['what do I like?', 'noted', 'S1'])
  })

  it('a turn with an image still carries the recalled memory, after the user text, on both wire formats', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgo='
    const parts = [
      { type: 'text' as const, text: 'what is this?' },
      { type: 'image_url' as const, image_url: { url: png } }
    ]
    const memory: AgentMemory = { prefetchAll: async () => 'user keeps cats' }
    kit = await makeKit([{ text: 'a cat' }])
    await kit.makeAgent({ memory }).runTurn('what is this?', { parts })
    const sent = kit.server.requests[0]!.body.messages.at(-1)
    expect(sent.content.map((p: { type: string }) => p.type)).toEqual(['text', 'image_url', 'text'])
    expect(sent.content[0].text).toBe('what is this?')
    expect(sent.content[2].text).toMatch(/^<memory-context>\n[\s\S]*user keeps cats\n<\/memory-context>$/)
    await kit.cleanup()
    kit = await makeKit([{ text: 'a cat' }])
    const runtime = { model: 'm', provider: 'custom', baseUrl: kit.server.baseUrl, maxRetries: 0 }
    await kit.makeAgent({ memory, runtime: { ...runtime, apiMode: 'anthropic_messages' } }).runTurn('what is this?', {
      parts
    })
    const blocks = kit.server.requests[0]!.body.messages.at(-1).content
    expect(blocks.map((b: { type: string }) => b.type)).toEqual(['text', 'image', 'text'])
    expect(blocks[2].text).toContain('user keeps cats')
    // Never persisted: the memory is for the call only.
    expect(kit.messages('S1')[0]!.content).not.toContain('user keeps cats')
  })

  it('a throwing memory hook never fails the turn', async () => {
    kit = await makeKit([{ text: 'fine' }])
    const boom = () => {
      throw new Error('provider down')
    }
    const r = await kit
      .makeAgent({ memory: { onTurnStart: boom, prefetchAll: boom, syncAll: boom, buildSystemPrompt: boom } })
      .runTurn('hi')
    expect(r.status).toBe('completed')
  })

  it('commitMemorySession hands the session messages to onSessionEnd', async () => {
    kit = await makeKit([{ text: 'reply' }])
    let ended: unknown[] = []
    const agent = kit.makeAgent({
      memory: {
        onSessionEnd: (m) => {
          ended = m
        }
      }
    })
    await agent.runTurn('hello')
    await agent.commitMemorySession()
    expect(ended.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant'])
  })
})
