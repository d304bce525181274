import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { summaryPlacement } from './summary-placement'
import { storedSystemPrompt } from '../store/read-detail'
import type { RecordedRequest, ScriptReply } from './scripted'
import { isSummaryCall, makeKit, recordingTool, type Kit } from './test-fixtures/kit'
import { rawDb } from '../store/test-fixtures/raw-db'
import { mergeSummaryInto, splitMergedSummary } from '@shared/contract/merged-summary'

let kit: Kit
afterEach(async () => {
  await kit?.cleanup()
})

const summarizer =
  (main: () => ScriptReply) =>
  (req: RecordedRequest): ScriptReply =>
    isSummaryCall(req)
      ? {
          text: 'The user and assistant discussed long topics A and B.',
          usage: { promptTokens: 900, completionTokens: 40 }
        }
      : main()

const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(40)}`

/** R0 → (compression) → S1 holding six long messages, so the next turn crosses the threshold. */
async function seedLineage(k: Kit) {
  await k.store.createSession('R0', 'desktop', { sessionKey: 'agent:main:desk:S1' })
  await k.store.appendMessage('R0', { role: 'user', content: 'very first' })
  await k.store.endSession('R0', 'compression')
  await k.store.createSession('S1', 'desktop', { parentSessionId: 'R0', sessionKey: 'agent:main:desk:S1' })
  for (let i = 0; i < 3; i++) {
    await k.store.appendMessage('S1', { role: 'user', content: long(`question ${i}`) })
    await k.store.appendMessage('S1', { role: 'assistant', content: long(`answer ${i}`) })
  }
}

const compression = { enabled: true, threshold: 0.5, contextLength: 1000, protectLastN: 2, targetRatio: 0.2 }

describe('context compression', () => {
  it('rotates into a child session whose parent ends with compression, keeping lineage', async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await seedLineage(kit)
    let preCompressed: unknown[] = []
    const agent = kit.makeAgent({
      compression,
      memory: {
        onPreCompress: (m) => {
          preCompressed = m
          return 'memory says: likes brevity'
        }
      }
    })
    const r = await agent.runTurn('next question', { onDelta: (d) => kit.deltas.push(d) })

    expect(r.status).toBe('completed')
    const child = agent.sessionId
    expect(child).not.toBe('S1')
    expect(r.sessionId).toBe(child)
    const parentRow = kit.store.getSession('S1')!
    const childRow = kit.store.getSession(child)!
    expect(parentRow.endReason).toBe('compression')
    expect(childRow).toMatchObject({
      parentSessionId: 'S1',
      source: 'desktop',
      sessionKey: 'agent:main:desk:S1',
      endedAt: null
    })
    expect(kit.store.getLineageRoot(child)).toBe('R0')
    expect(kit.store.getLineageRoot(child)).toBe(kit.store.getLineageRoot('S1'))
    expect(kit.store.resolveResumeSessionId('S1')).toBe(child)

    // Child = summary + protected tail (last answer + the new question) + the reply.
    const rows = kit.messages(child)
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(rows[0]!.content).toBe('[CONTEXT SUMMARY]:\nThe user and assistant discussed long topics A and B.')
    expect(rows[0]!.display_kind).toBe('compression_summary')
    // upstream's flag on its summary rows (its compressor and clients tell a summary from a turn by it)
    expect(rows.map((m) => m._compressed_summary)).toEqual([1, 0, 0, 0])
    expect(rows[2]!.content).toBe('next question')
    expect(rows[3]!.content).toBe('Continuing after compression.')
    expect(childRow.messageCount).toBe(4)
    expect(parentRow.messageCount).toBe(7) // six seeded + the user message saved before rotation

    // The summarizer saw the older messages and the memory notes; the main call saw the summary.
    const summaryReq = kit.server.requests.find(isSummaryCall)!
    expect(summaryReq.body.tools).toBeUndefined()
    expect(summaryReq.body.messages[1].content).toContain('memory says: likes brevity')
    expect(preCompressed).toHaveLength(5)
    const mainReq = kit.server.requests.at(-1)!
    expect(mainReq.body.messages[0].content).toContain('topics A and B')
    // Summary call usage landed on the parent under task 'compression'.
    const usage = rawDb(kit.store)
      .prepare("SELECT api_call_count FROM session_model_usage WHERE session_id = 'S1' AND task = 'compression'")
      .get() as { api_call_count: number }
    expect(usage.api_call_count).toBe(1)

    const notice = kit.deltas.find((d) => d.kind === 'notice')!
    expect(notice.savedSessionId).toBe(child)
    // Messages after the rotation are announced as saved to the child.
    expect(kit.deltas.filter((d) => d.kind === 'message_saved').at(-1)!.savedSessionId).toBe(child)

    // The next turn keeps going in the child without compressing again.
    kit.server.push({ text: 'still here' })
    const r2 = await agent.runTurn('and then?')
    expect(r2.sessionId).toBe(child)
    expect(kit.messages(child)).toHaveLength(6)
  })

  it('says it is compressing while the summary runs, and not after (a message sent meanwhile is queued)', async () => {
    const during: boolean[] = []
    let agent: ReturnType<Kit['makeAgent']> | null = null
    kit = await makeKit([], {
      handler: (req) => {
        during.push(agent!.compressing)
        return summarizer(() => ({ text: 'Continuing after compression.' }))(req)
      }
    })
    await seedLineage(kit)
    agent = kit.makeAgent({ compression })
    expect(agent.compressing).toBe(false)
    const r = await agent.runTurn('next question')
    expect(r.status).toBe('completed')
    // the summary call, then the turn's own model call
    expect(kit.server.requests.map(isSummaryCall)).toEqual([true, false])
    expect(during).toEqual([true, false])
    expect(agent.compressing).toBe(false)
  })

  it('a failed summary leaves the parent live and the turn still completes', async () => {
    kit = await makeKit([], {
      handler: (req: RecordedRequest) => (isSummaryCall(req) ? { error: 503 } : { text: 'answered anyway' })
    })
    await seedLineage(kit)
    const agent = kit.makeAgent({ compression })
    const r = await agent.runTurn('next question', { onDelta: (d) => kit.deltas.push(d) })
    expect(r.status).toBe('completed')
    expect(agent.sessionId).toBe('S1')
    expect(kit.store.getSession('S1')!.endReason).toBeNull()
    expect(kit.deltas.some((d) => d.kind === 'notice' && /compression failed/i.test(d.text ?? ''))).toBe(true)
    expect(kit.server.requests.filter(isSummaryCall)).toHaveLength(1) // not retried every iteration
  })

  it('stays off below the threshold or when disabled', async () => {
    kit = await makeKit([{ text: 'short' }, { text: 'again' }])
    await seedLineage(kit)
    const agent = kit.makeAgent({ compression: { ...compression, enabled: false } })
    await agent.runTurn('hi')
    expect(agent.sessionId).toBe('S1')
    const roomy = kit.makeAgent({ compression: { ...compression, contextLength: 1_000_000 } })
    await roomy.runTurn('hi again')
    expect(roomy.sessionId).toBe('S1')
    expect(kit.server.requests.some(isSummaryCall)).toBe(false)
  })

  it('the protected tail never starts with a tool result: the call moves into the child with it', async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await kit.store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    await kit.store.appendMessage('S1', { role: 'user', content: long('question 0') })
    await kit.store.appendMessage('S1', { role: 'assistant', content: long('answer 0') })
    await kit.store.appendMessage('S1', { role: 'user', content: long('question 1') })
    // a call a model made, stored with upstream's call_id / response_item_id keys
    await kit.store.appendMessage('S1', {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }],
      modelCalls: true
    })
    await kit.store.appendMessage('S1', { role: 'tool', content: long('result'), toolCallId: 'c1', toolName: 'lookup' })
    await kit.store.appendMessage('S1', { role: 'assistant', content: 'done' })
    // The last three (tool result, 'done', the new question) would start on the tool result; the tail takes its call.
    const agent = kit.makeAgent({ compression: { ...compression, protectLastN: 3 } })
    expect((await agent.runTurn('next question')).status).toBe('completed')
    expect(agent.sessionId).not.toBe('S1')
    const rows = kit.messages(agent.sessionId)
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(rows[0]!.display_kind).toBe('compression_summary')
    expect(rows[2]!.tool_call_id).toBe('c1')
    // the copy writes the call as the original row has it, upstream's keys included (upstream copies the stored dict)
    expect(rows[1]!.tool_calls).toBe(kit.messages('S1')[3]!.tool_calls)
    expect(JSON.parse(rows[1]!.tool_calls!)[0]).toMatchObject({ call_id: 'c1', response_item_id: 'fc_c1' })
  })
})

describe('compression during one long tool loop', () => {
  /** Five tool rounds whose results are each over the threshold on their own, then an answer. */
  async function toolLoop(memory: string) {
    let round = 0
    kit = await makeKit([], {
      handler: summarizer(() =>
        ++round <= 5 ? { toolCalls: [{ name: 'fetch_page', arguments: { n: round } }] } : { text: 'Read them all.' }
      )
    })
    kit.tools.register(recordingTool('fetch_page', (a) => long(`page ${String(a.n)}`).repeat(3)).def)
    await seedLineage(kit)
    const agent = kit.makeAgent({ compression, memory: { prefetchAll: async () => memory } })
    const r = await agent.runTurn('read pages 1 to 5', { onDelta: (d) => kit.deltas.push(d) })
    const mainCalls = kit.server.requests.filter((q) => !isSummaryCall(q))
    const summaryCalls = kit.server.requests.filter(isSummaryCall)
    return { agent, r, mainCalls, summaryCalls }
  }

  it('does not rotate on every round when the kept messages alone stay over the threshold; says so once', async () => {
    const { agent, r, summaryCalls } = await toolLoop('')
    expect(r.status).toBe('completed')
    expect(r.finalText).toBe('Read them all.')
    // Before the first call: the old history goes (under the threshold again). After round 1 the summary and the
    // one kept old answer go too, which still leaves it over: said once, and no more rotations for rounds 2 to 5.
    expect(summaryCalls).toHaveLength(2)
    const sessions = rawDb(kit.store).prepare('SELECT id FROM sessions').all()
    expect(sessions).toHaveLength(4) // R0, S1 and two continuations, not one per model call
    expect(kit.store.getSession('S1')!.endReason).toBe('compression')
    expect(kit.store.getSession(agent.sessionId)!.endedAt).toBeNull()
    const notices = kit.deltas.filter((d) => d.kind === 'notice').map((d) => d.text)
    expect(notices.filter((t) => /still over/.test(t ?? ''))).toHaveLength(1)
  })

  it("keeps the turn's own message and its recalled memory in every call after compressing", async () => {
    const { mainCalls, summaryCalls } = await toolLoop('recalled: the user reads slowly')
    for (const call of summaryCalls) expect(String(call.body.messages[1].content)).not.toContain('read pages 1 to 5')
    expect(mainCalls).toHaveLength(6)
    for (const call of mainCalls) {
      const sent = JSON.stringify(call.body.messages)
      expect(sent).toContain('read pages 1 to 5')
      expect(sent).toContain('recalled: the user reads slowly')
    }
  })
})

describe('the continuation as upstream writes it (golden: scripts/golden/turn_rows.py)', () => {
  const golden = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/turn-rows/golden.json'), 'utf8')
  ) as {
    summary_roles: Array<{ tail: string[]; user_survives: boolean; placement: string }>
  }

  it("places the summary by upstream's role rule, with the system prompt as the only head", () => {
    for (const c of golden.summary_roles)
      expect([c.tail, summaryPlacement('system', c.tail[0], c.user_survives)]).toEqual([c.tail, c.placement])
  })

  /** S1 titled 'Trip plan': three question/answer pairs, the answers stored with finish_reason 'stop'. */
  async function seedTitled(k: Kit) {
    await k.store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    await k.store.setTitle('S1', 'Trip plan')
    for (let i = 0; i < 3; i++) {
      await k.store.appendMessage('S1', { role: 'user', content: long(`question ${i}`) })
      await k.store.appendMessage('S1', { role: 'assistant', content: long(`answer ${i}`), finishReason: 'stop' })
    }
  }

  it("titles the child 'X #2', stores the agent's prompt on it and keeps finish_reason on copied rows", async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await seedTitled(kit)
    const agent = kit.makeAgent({ compression, systemPrompt: 'You are the golden agent.' })
    await agent.runTurn('next question')
    const child = agent.sessionId
    expect(child).not.toBe('S1')
    expect(kit.store.getSession(child)!.title).toBe('Trip plan #2')
    const prompt = storedSystemPrompt(rawDb(kit.store), 'S1')
    expect(prompt).toContain('You are the golden agent.')
    expect(storedSystemPrompt(rawDb(kit.store), child)).toBe(prompt)
    const rows = kit.messages(child)
    // tail [assistant, user] → a user summary (golden), then the kept answer with its finish_reason
    expect(rows.map((r) => [r.role, r.finish_reason])).toEqual([
      ['user', null],
      ['assistant', 'stop'],
      ['user', null],
      ['assistant', 'stop']
    ])
    // A second compression in the lineage numbers on: 'Trip plan #3'.
    for (let i = 0; i < 3; i++) {
      await kit.store.appendMessage(child, { role: 'user', content: long(`more ${i}`) })
      await kit.store.appendMessage(child, { role: 'assistant', content: long(`reply ${i}`) })
    }
    const again = kit.makeAgent({ compression, sessionId: child })
    await again.runTurn('one more')
    expect(again.sessionId).not.toBe(child)
    expect(kit.store.getSession(again.sessionId)!.title).toBe('Trip plan #3')
    // The second summary is asked of the first as an earlier summary, not as something the user said.
    const asked = String(kit.server.requests.filter(isSummaryCall).at(-1)!.body.messages[1].content)
    expect(asked).toMatch(
      /^\[earlier summary\]: The user and assistant discussed long topics A and B\.\n\n\[assistant\]/
    )
    expect(asked).not.toContain('CONTEXT SUMMARY')
  })

  it("folds in an earlier summary v31's flag marks, whatever it opens with, as the one rule reads it", async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await kit.store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    // a later upstream's summary in an opening no reader knows, flagged as v31 upstream flags its summaries
    const opening = '[HANDOFF NOTES — a later upstream] The user planned a trip to Lisbon.'
    await kit.store.appendMessage('S1', { role: 'user', content: opening, compressedSummary: true })
    for (let i = 0; i < 3; i++) {
      // (an answer stored with its reasoning inline, as Caduceus stored them before: the summarizer never reads it)
      await kit.store.appendMessage('S1', {
        role: 'assistant',
        content: `<think>musing ${i}</think>${long(`answer ${i}`)}`
      })
      await kit.store.appendMessage('S1', { role: 'user', content: long(`question ${i + 1}`) })
    }
    const agent = kit.makeAgent({ compression })
    await agent.runTurn('next question')
    expect(agent.sessionId).not.toBe('S1')
    const asked = String(kit.server.requests.filter(isSummaryCall).at(-1)!.body.messages[1].content)
    expect(asked.startsWith(`[earlier summary]: ${opening}\n\n[assistant]: answer 0`)).toBe(true)
    expect(asked).not.toContain('musing')
    expect(asked).not.toContain('[user]: [HANDOFF NOTES')
    // the conversation read back carries the flag (never sent to a provider)
    expect(kit.store.getMessagesAsConversation('S1')[0]).toMatchObject({ compressedSummary: true })
    const sent = kit.server.requests.filter((r) => !isSummaryCall(r))
    expect(JSON.stringify(sent.map((r) => r.body.messages))).not.toContain('compressedSummary')
  })

  it("takes the compressing surface's source, not the parent's, as upstream's continuation takes its platform", async () => {
    // upstream: conversation_compression.compress_context creates the child with source=agent.platform
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await kit.store.createSession('S1', 'telegram', { sessionKey: 'agent:main:telegram:dm:42' })
    for (let i = 0; i < 3; i++) {
      await kit.store.appendMessage('S1', { role: 'user', content: long(`question ${i}`) })
      await kit.store.appendMessage('S1', { role: 'assistant', content: long(`answer ${i}`) })
    }
    const agent = kit.makeAgent({ compression, source: 'desktop' })
    await agent.runTurn('resumed on the desk')
    expect(agent.sessionId).not.toBe('S1')
    expect(kit.store.getSession(agent.sessionId)).toMatchObject({ parentSessionId: 'S1', source: 'desktop' })
    expect(kit.store.getSession('S1')).toMatchObject({ source: 'telegram', endReason: 'compression' })
    expect(kit.store.resolveResumeSessionId('S1')).toBe(agent.sessionId)
  })

  it('merges the summary into a kept user message rather than sending two user messages in a row', async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await seedTitled(kit)
    const agent = kit.makeAgent({ compression: { ...compression, protectLastN: 1 } })
    await agent.runTurn('next question')
    const rows = kit.messages(agent.sessionId)
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant'])
    // The summary first (opened as upstream recognises a summary), its end, then the kept message's own words.
    expect(rows[0]!.content).toBe(
      mergeSummaryInto('next question', 'The user and assistant discussed long topics A and B.')
    )
    expect(rows[0]!.content).toMatch(/^\[CONTEXT SUMMARY\]:\nThe user and assistant[^\n]*\n\n\[End of the summary/)
    expect(rows[0]!.content).toMatch(/\]\n\nnext question$/)
    expect(splitMergedSummary(rows[0]!.content)).toEqual({
      kept: 'next question',
      summary: 'The user and assistant discussed long topics A and B.'
    })
    const meta = rawDb(kit.store)
      .prepare('SELECT display_metadata FROM messages WHERE session_id = ? ORDER BY id LIMIT 1')
      .get(agent.sessionId) as { display_metadata: string }
    expect(JSON.parse(meta.display_metadata)).toMatchObject({ summaryMerged: true })
    // the kept message holding the summary carries upstream's flag, as upstream's merged message does
    expect(rows.map((m) => m._compressed_summary)).toEqual([1, 0])
    expect(kit.store.getMessages({ sessionId: agent.sessionId }).items[0]).toMatchObject({ summaryMerged: true })
    const sent = kit.server.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>
    expect(sent.filter((m) => m.role !== 'system').map((m) => m.role)).toEqual(['user'])
    expect(sent.at(-1)!.content).toBe(rows[0]!.content)
  })

  it('a summary merged into a message with an image goes ahead of its parts, and its row splits as text does', async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await seedTitled(kit)
    const agent = kit.makeAgent({ compression: { ...compression, protectLastN: 1 } })
    const png = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } } as const
    await agent.runTurn('what is this?', { parts: [{ type: 'text', text: 'what is this?' }, png] })
    const row = kit.messages(agent.sessionId)[0]!
    expect(splitMergedSummary(row.content)).toEqual({
      kept: 'what is this?\n[screenshot]',
      summary: 'The user and assistant discussed long topics A and B.'
    })
    const sent = kit.server.requests.at(-1)!.body.messages.at(-1) as { content: Array<Record<string, unknown>> }
    expect(sent.content.map((p) => p.type)).toEqual(['text', 'text', 'image_url'])
    expect(String(sent.content[0]!.text)).toMatch(/^\[CONTEXT SUMMARY\]:\nThe user and assistant/)
  })

  it("a summary merged into a kept message keeps that message's time, as a plain copy of it does", async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing after compression.' })) })
    await kit.store.createSession('S1', 'desktop', { sessionKey: 'agent:main:desk:S1' })
    for (let i = 0; i < 3; i++) {
      await kit.store.appendMessage('S1', { role: 'user', content: long(`question ${i}`), timestamp: 1000 + 10 * i })
      await kit.store.appendMessage('S1', { role: 'assistant', content: long(`answer ${i}`), timestamp: 1005 + 10 * i })
    }
    const agent = kit.makeAgent({ compression: { ...compression, protectLastN: 3 } })
    await agent.runTurn('next question')
    const child = rawDb(kit.store)
      .prepare('SELECT content, timestamp, display_metadata FROM messages WHERE session_id = ? ORDER BY id')
      .all(agent.sessionId) as Array<{ content: string; timestamp: number; display_metadata: string | null }>
    expect(splitMergedSummary(child[0]!.content)?.kept).toBe(long('question 2'))
    expect(child.slice(0, 2).map((r) => r.timestamp)).toEqual([1020, 1025])
  })

  it("a parent that cleanup stamped ended while the summary was written still ends with 'compression'", async () => {
    kit = await makeKit([], {
      handler: (req) => {
        // another program's shutdown sweep closes the session meanwhile (upstream's TUI leaves 'tui_shutdown')
        if (isSummaryCall(req)) {
          const other = new Database(kit.store.path)
          other.prepare("UPDATE sessions SET ended_at = 1, end_reason = 'tui_shutdown' WHERE id = 'S1'").run()
          other.close()
        }
        return summarizer(() => ({ text: 'Continuing after compression.' }))(req)
      }
    })
    await seedTitled(kit)
    const agent = kit.makeAgent({ compression })
    expect((await agent.runTurn('next question')).status).toBe('completed')
    expect(agent.sessionId).not.toBe('S1')
    expect(kit.store.getSession('S1')!.endReason).toBe('compression')
    expect(kit.store.compressionChainIds('S1')).toEqual(['S1', agent.sessionId])
  })

  it("holds upstream's compression lease while it compresses, and leaves a session another program holds alone", async () => {
    let during: unknown[] = []
    kit = await makeKit([], {
      handler: (req) => {
        if (isSummaryCall(req)) during = rawDb(kit.store).prepare('SELECT holder FROM compression_locks').all()
        return summarizer(() => ({ text: 'Continuing after compression.' }))(req)
      }
    })
    await seedTitled(kit)
    // the table as upstream's SCHEMA_SQL creates it (a home upstream has opened)
    rawDb(kit.store).exec(`CREATE TABLE compression_locks (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL,
      acquired_at REAL NOT NULL, expires_at REAL NOT NULL)`)
    const now = Date.now() / 1000
    rawDb(kit.store)
      .prepare("INSERT INTO compression_locks VALUES ('S1', 'pid=999999:tid=1:agent=a:nonce=b', ?, ?)")
      .run(now, now + 300)
    const agent = kit.makeAgent({ compression })
    await agent.runTurn('next question', { onDelta: (d) => kit.deltas.push(d) })
    expect(agent.sessionId).toBe('S1')
    expect(kit.store.getSession('S1')!.endedAt).toBeNull()
    expect(kit.deltas.some((d) => d.kind === 'notice' && /another program is compressing/.test(d.text ?? ''))).toBe(
      true
    )

    // its lease gone (expired), the next turn compresses, holding the lease meanwhile and giving it back after
    rawDb(kit.store)
      .prepare('UPDATE compression_locks SET expires_at = ?')
      .run(now - 1)
    const next = kit.makeAgent({ compression })
    await next.runTurn('and another')
    expect(next.sessionId).not.toBe('S1')
    expect(during).toEqual([{ holder: expect.stringMatching(new RegExp(`^pid=${process.pid}:`)) }])
    expect(rawDb(kit.store).prepare('SELECT * FROM compression_locks').all()).toEqual([])
  })

  it("a merge whose child write fails leaves the parent's messages as they were, and no child", async () => {
    kit = await makeKit([], { handler: summarizer(() => ({ text: 'Continuing uncompressed.' })) })
    await seedTitled(kit)
    // A real failure inside the write: the merged row's insert aborts (a trigger on the store's own connection).
    rawDb(kit.store).exec(`CREATE TEMP TRIGGER fail_merge BEFORE INSERT ON messages
      WHEN NEW.display_metadata LIKE '%summaryMerged%' BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
    const agent = kit.makeAgent({ compression: { ...compression, protectLastN: 1 } })
    const r = await agent.runTurn('next question')
    expect(r.status).toBe('completed')
    expect(agent.sessionId).toBe('S1')
    const sent = kit.server.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'next question' })
    expect(agent.sessionMessages.some((m) => (m.content ?? '').includes('[Summary of the earlier'))).toBe(false)
    // Upstream publishes the child in one transaction: nothing of it is left (no untitled empty row in the list).
    const children = rawDb(kit.store).prepare("SELECT id FROM sessions WHERE parent_session_id = 'S1'").all()
    expect(children).toEqual([])
    expect(kit.store.getSession('S1')!.endedAt).toBeNull()
  })
})
