import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CaduceusError, rowSummary } from '@shared/contract'
import { SessionStore } from './index'
import { CompressionSessionClosedError } from './errors'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { loadPricer } from '../agent/pricing'

afterAll(cleanupTempDirs)
let store: SessionStore
beforeEach(() => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
})
afterEach(() => store.close())

const count = (id: string) => store.getSession(id)!.messageCount
const rows = (id: string) =>
  (rawDb(store).prepare('SELECT count(*) AS n FROM messages WHERE session_id = ?').get(id) as { n: number }).n

describe('session rows (§1.5)', () => {
  it('createSession is an upsert: earlier non-null values win, source only replaces unknown', async () => {
    await store.ensureSession('s', 'unknown', { model: 'm1' })
    await store.createSession('s', 'cli', { model: 'm2', cwd: '/w', sessionKey: 'agent:main:x' })
    expect(store.getSession('s')).toMatchObject({
      source: 'cli',
      model: 'm1',
      cwd: '/w',
      sessionKey: 'agent:main:x',
      profileName: 'default'
    })
    await store.createSession('s', 'telegram', { cwd: '/other' })
    expect(store.getSession('s')).toMatchObject({ source: 'cli', cwd: '/w' })
    // a record, not a row: one camelCase field per declared column, none in snake_case
    const keys = Object.keys(store.getSession('s')!)
    expect(keys).toContain('gitMetadataGeneration')
    expect(keys.filter((k) => k.includes('_'))).toEqual([])
  })

  it('stores system prompts content-addressed and modelConfig as JSON (empty → NULL)', async () => {
    await store.createSession('a', 'cli', { systemPrompt: 'You are helpful.', modelConfig: {} })
    const row = store.getSession('a')!
    expect(row.modelConfig).toBeNull()
    expect(rawDb(store).prepare('SELECT prompt FROM system_prompts WHERE hash = ?').get(row.systemPromptHash)).toEqual({
      prompt: 'You are helpful.'
    })
  })

  it('children inherit workspace; only compression continuations inherit routing', async () => {
    await store.createSession('p', 'telegram', {
      cwd: '/repo',
      userId: 'u1',
      sessionKey: 'agent:main:tg:1',
      chatId: 'c1'
    })
    await store.createSession('d', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    expect(store.getSession('d')).toMatchObject({ cwd: '/repo', userId: null, sessionKey: null, chatId: null })
    await store.endSession('p', 'compression')
    await store.createSession('c', 'telegram', { parentSessionId: 'p' })
    expect(store.getSession('c')).toMatchObject({
      cwd: '/repo',
      userId: 'u1',
      sessionKey: 'agent:main:tg:1',
      chatId: 'c1'
    })
  })

  it('first end reason wins; reopen clears it', async () => {
    await store.createSession('s', 'cli')
    expect(await store.endSession('s', 'compression', 10)).toBe(true)
    expect(await store.endSession('s', 'cli_close', 20)).toBe(false)
    expect(store.getSession('s')).toMatchObject({ endReason: 'compression', endedAt: 10 })
    expect(await store.reopenSession('s')).toBe(true)
    expect(store.getSession('s')).toMatchObject({ endReason: null, endedAt: null })
  })

  it('validates ids and inputs with contract errors', async () => {
    await expect((async () => store.createSession('', 'cli'))()).rejects.toThrow(CaduceusError)
    await expect((async () => store.createSession('x', ''))()).rejects.toThrow(/source/)
    await expect((async () => store.appendMessage('missing', { role: 'user', content: 'x' }))()).rejects.toThrow(
      /Unknown session/
    )
    await store.createSession('x', 'cli')
    await expect((async () => store.appendMessage('x', { role: '', content: 'x' }))()).rejects.toThrow(/role/)
    await expect(
      (async () => store.appendMessage('x', { role: 'user', content: 5 as unknown as string }))()
    ).rejects.toThrow(/content/)
    expect(count('x')).toBe(0)
  })
})

describe('message_count maintenance (§1.6)', () => {
  it('each append bumps message_count by exactly one and tool_call_count by N', async () => {
    await store.createSession('s', 'cli')
    await store.appendMessage('s', { role: 'user', content: 'text' })
    expect(count('s')).toBe(1)
    await store.appendMessage('s', {
      role: 'assistant',
      content: null,
      toolCalls: [
        { id: 'a', name: 't', arguments: '{}' },
        { id: 'b', name: 't', arguments: '{}' }
      ]
    })
    expect(store.getSession('s')).toMatchObject({ messageCount: 2, toolCallCount: 2 })
  })

  it('count equals rows after many single and batch appends', async () => {
    await store.createSession('s', 'cli')
    for (let i = 0; i < 50; i++)
      await store.appendMessage('s', { role: i % 2 ? 'assistant' : 'user', content: `m${i}` })
    await store.appendMessages(
      's',
      Array.from({ length: 25 }, (_, i) => ({ role: 'user', content: `b${i}` }))
    )
    expect(count('s')).toBe(75)
    expect(rows('s')).toBe(75)
  })

  it('a failing insert leaves the count unchanged (one transaction)', async () => {
    await store.createSession('s', 'cli')
    await store.appendMessage('s', { role: 'user', content: 'fine' })
    rawDb(store).exec(
      `CREATE TRIGGER boom BEFORE INSERT ON messages WHEN NEW.content = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`
    )
    await expect((async () => store.appendMessage('s', { role: 'user', content: 'boom' }))()).rejects.toThrow(/boom/)
    await expect(
      (async () =>
        store.appendMessages('s', [
          { role: 'user', content: 'ok' },
          { role: 'user', content: 'boom' }
        ]))()
    ).rejects.toThrow(/boom/)
    expect(count('s')).toBe(1)
    expect(rows('s')).toBe(1)
  })

  it('refuses appends to a session ended by compression, with a clear error', async () => {
    await store.createSession('s', 'cli')
    await store.endSession('s', 'compression')
    await expect((async () => store.appendMessage('s', { role: 'user', content: 'x' }))()).rejects.toThrow(
      CompressionSessionClosedError
    )
    await expect((async () => store.appendMessage('s', { role: 'user', content: 'x' }))()).rejects.toThrow(
      /closed by compression/
    )
    expect(count('s')).toBe(0)
  })

  it('reports touched ids after commit only', async () => {
    const seen: string[][] = []
    store.onLocalChange((e) => seen.push(e.sessionIds))
    await store.createSession('s', 'cli')
    await store.appendMessage('s', { role: 'user', content: 'x' })
    await expect(
      (async () =>
        store.write((tx) => {
          tx.touch('s')
          throw new Error('rollback')
        }))()
    ).rejects.toThrow('rollback')
    expect(seen).toEqual([['s'], ['s']])
  })
})

describe('lineage (§1.7)', () => {
  async function seedLineage() {
    // seed 004: test_lineage_authority_rejects_siblings_and_foreigners (store side)
    await store.createSession('A', 'cli')
    await store.endSession('A', 'compression')
    await store.createSession('B', 'cli', { parentSessionId: 'A' })
    await store.createSession('branch', 'cli', { parentSessionId: 'A', modelConfig: { _branched_from: 'A' } })
    await store.createSession('delegatechild', 'delegate', {
      parentSessionId: 'A',
      modelConfig: { _delegate_from: 'A' }
    })
    await store.createSession('stranger', 'cli')
    await store.createSession('toolrun', 'tool', { parentSessionId: 'A' })
  }

  it('lineage root: root, continuation → root; branch, delegate, tool, stranger-as-own-root, blank, unknown', async () => {
    await seedLineage()
    expect(store.getLineageRoot('A')).toBe('A')
    expect(store.getLineageRoot('B')).toBe('A')
    expect(store.getLineageRoot('branch')).toBeNull()
    expect(store.getLineageRoot('delegatechild')).toBeNull()
    expect(store.getLineageRoot('toolrun')).toBeNull()
    expect(store.getLineageRoot('stranger')).toBe('stranger')
    expect(store.getLineageRoot('')).toBeNull()
    expect(store.getLineageRoot('   ')).toBeNull()
    expect(store.getLineageRoot(null)).toBeNull()
    expect(store.getLineageRoot('nope')).toBeNull()
  })

  it('a marker beside an unlimited budget (max_turns: .inf, written as upstream writes it: Infinity) still counts', async () => {
    await store.createSession('A', 'cli')
    await store.endSession('A', 'compression')
    await store.createSession('wide', 'cli', {
      parentSessionId: 'A',
      modelConfig: { max_iterations: Infinity, _branched_from: 'A' }
    })
    expect(store.getSession('wide')?.modelConfig).toBe('{"max_iterations": Infinity, "_branched_from": "A"}')
    expect(store.getLineageRoot('wide')).toBeNull()
    await store.createSession('wide-delegate', 'delegate', {
      parentSessionId: 'A',
      modelConfig: { max_iterations: Infinity, _delegate_from: 'A' }
    })
    // the SQL side reads the marker too: deleting the parent takes its subagent run with it, as upstream's does
    expect((await store.deleteSession('A')).deletedIds.sort()).toEqual(['A', 'wide-delegate'])
  })

  it('multi-hop chains resolve to the live tip; chain is root-first and cycle-safe', async () => {
    await seedLineage()
    await store.endSession('B', 'compression')
    await store.createSession('C', 'cli', { parentSessionId: 'B' })
    expect(store.resolveResumeSessionId('A')).toBe('C')
    expect(store.resolveResumeSessionId('C')).toBe('C')
    expect(store.resolveResumeSessionId('unknown')).toBe('unknown')
    expect(store.compressionChainIds('B')).toEqual(['A', 'B', 'C'])
    expect(store.getLineageRoot('C')).toBe('A')
    // a corrupt parent loop must not hang
    rawDb(store).pragma('foreign_keys = OFF')
    rawDb(store).prepare("UPDATE sessions SET parent_session_id = 'C', end_reason = 'compression' WHERE id = 'A'").run()
    expect(store.compressionChainIds('A').length).toBeLessThanOrEqual(3)
    expect(() => store.getLineageRoot('B')).not.toThrow()
  })

  it('getLineageRoot never throws on malformed model_config', async () => {
    await store.createSession('p', 'cli')
    await store.createSession('x', 'cli', { parentSessionId: 'p' })
    rawDb(store).prepare("UPDATE sessions SET model_config = '{not json' WHERE id = 'x'").run()
    expect(store.getLineageRoot('x')).toBe('x')
  })
})

describe('conversation history', () => {
  it('returns OpenAI-style messages in order and repairs alternation', async () => {
    await store.createSession('s', 'cli')
    await store.appendMessages('s', [
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'again' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'terminal', arguments: '{"cmd":"ls"}' },
          { id: 'c2', name: 'x', arguments: '{}' }
        ]
      },
      { role: 'tool', content: 'a.txt', toolCallId: 'c1', toolName: 'terminal' },
      { role: 'tool', content: 'orphan', toolCallId: 'zzz' },
      { role: 'assistant', content: 'done', reasoning: 'easy' },
      { role: 'session_meta', content: '{}' }
    ])
    const raw = store.getMessagesAsConversation('s')
    expect(raw.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'tool', 'tool', 'assistant'])
    expect(raw[2].tool_calls?.[0]).toEqual({
      id: 'c1',
      type: 'function',
      function: { name: 'terminal', arguments: '{"cmd":"ls"}' }
    })
    const fixed = store.getMessagesAsConversation('s', { repairAlternation: true })
    expect(fixed.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(fixed[0].content).toBe('hi\n\nagain')
    expect(fixed[1].tool_calls?.map((c) => c.id)).toEqual(['c1'])
    expect(fixed[3]).toMatchObject({ content: 'done', reasoning: 'easy' })
  })

  it('a user turn merged with a compression summary is flagged as holding one, the words kept apart from it', async () => {
    // upstream v31 flags a row that holds a summary (its own or merged into a kept message); a merge of a flagged and an
    // unflagged user row kept only the first row's flag: summary-then-words read all as summary (the words lost to a
    // later compression and the API server's turns), words-then-summary read the summary as the user's words
    const summary = 'Earlier: the repo was set up and the tests pass'
    await store.createSession('m1', 'cli')
    await store.appendMessages('m1', [
      { role: 'user', content: summary, compressedSummary: true },
      { role: 'user', content: 'next question' },
      { role: 'user', content: 'and another' }
    ])
    await store.createSession('m2', 'cli')
    await store.appendMessages('m2', [
      { role: 'user', content: 'hi' },
      { role: 'user', content: summary, compressedSummary: true }
    ])
    for (const id of ['m1', 'm2']) {
      const [merged, ...rest] = store.getMessagesAsConversation(id, { repairAlternation: true })
      expect(rest, id).toEqual([])
      expect(merged!.compressedSummary, id).toBe(true)
      expect(rowSummary('user', merged!.content, merged!.compressedSummary), id).toEqual({
        summary,
        kept: id === 'm1' ? 'next question\n\nand another' : 'hi'
      })
    }
  })
})

describe('titles (§1.8)', () => {
  it('sanitizes, caps length, enforces uniqueness and rank', async () => {
    await store.createSession('a', 'cli')
    await store.createSession('b', 'cli')
    expect(await store.setTitle('a', '  My\u200B  session\x07 ')).toBe(true)
    expect(store.getSession('a')!.title).toBe('My session')
    await expect((async () => store.setTitle('b', 'My session'))()).rejects.toThrow(
      "Title 'My session' is already in use by session a"
    )
    await expect((async () => store.setTitle('b', 'x'.repeat(101)))()).rejects.toThrow(
      'Title too long (101 chars, max 100)'
    )
    expect(await store.setTitle('a', 'auto', 'derived')).toBe(false) // user title outranks derived
    expect(await store.setTitle('b', 'auto', 'derived')).toBe(true)
    expect(await store.setTitle('b', 'better', 'llm')).toBe(true)
    expect(await store.setTitle('b', '\u200B')).toBe(true)
    expect(store.getSession('b')!.title).toBeNull()
  })

  it('a compression ancestor hands its title to the continuation', async () => {
    await store.createSession('a', 'cli')
    await store.setTitle('a', 'Chain')
    await store.endSession('a', 'compression')
    await store.createSession('b', 'cli', { parentSessionId: 'a' })
    expect(await store.setTitle('b', 'Chain')).toBe(true)
    expect(store.getSession('a')!.title).toBeNull()
  })
})

describe('usage and cost (§1.9)', () => {
  const u = (costUsd: number | null, costStatus: 'estimated' | 'billed' | 'unpriced', model = 'm') => ({
    model,
    provider: 'p',
    baseUrl: 'http://x',
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    apiCalls: 1,
    costUsd,
    costStatus
  })

  it('unpriced usage never becomes $0; mixing priced and unpriced is partial', async () => {
    await store.createSession('s', 'cli')
    await store.recordUsage('s', u(null, 'unpriced'))
    await store.recordUsage('s', u(null, 'unpriced'))
    expect(store.getSession('s')).toMatchObject({
      // upstream's update_token_counts writes 0.0 for a call without a price; its status says what that 0.0 means
      estimatedCostUsd: 0,
      costStatus: 'unknown', // upstream's word for it (still, after a second unpriced call: the 0.0 is no price)
      inputTokens: 200,
      apiCallCount: 2
    })
    expect(store.summary('s')!.cost).toEqual({ usd: null, status: 'unpriced', complete: false })
    await store.recordUsage('s', u(0.5, 'estimated'))
    expect(store.getSession('s')).toMatchObject({ estimatedCostUsd: 0.5, costStatus: 'partial', inputTokens: 300 })
    expect(store.summary('s')!.cost).toEqual({ usd: 0.5, status: 'partial', complete: false })
  })

  it('priced usage accumulates, billed goes to actual_cost_usd, per-model rows are additive', async () => {
    await store.createSession('s', 'cli')
    expect(store.summary('s')!.cost).toEqual({ usd: 0, status: 'none', complete: true })
    await store.recordUsage('s', u(0.25, 'estimated'))
    await store.recordUsage('s', u(0.25, 'estimated'))
    expect(store.summary('s')!.cost).toEqual({ usd: 0.5, status: 'estimated', complete: true })
    await store.createSession('b', 'cli')
    await store.recordUsage('b', u(1, 'billed', 'big'))
    expect(store.getSession('b')).toMatchObject({
      actualCostUsd: 1,
      estimatedCostUsd: null,
      model: 'big',
      billingProvider: 'p'
    })
    expect(store.summary('b')!.cost).toEqual({ usd: 1, status: 'billed', complete: true })
    const usage = store.getSessionDetail('s')!.usage
    expect(usage).toHaveLength(1)
    expect(usage[0]).toMatchObject({
      model: 'm',
      apiCalls: 2,
      tokens: { input: 200, output: 20 },
      cost: { usd: 0.5, status: 'estimated' }
    })
    await expect((async () => store.recordUsage('s', { ...u(-1, 'estimated') }))()).rejects.toThrow(/costUsd/)
  })
  // scripts/golden/usage_values.py: upstream's estimate_usage_cost + update_token_counts for one call per situation
  it("writes upstream's billing_mode, cost_status and cost_source for the same calls (golden)", async () => {
    type Row = Record<string, unknown>
    type Case = {
      createdModel: string
      calls: Array<{ model: string; provider: string; base_url: string }>
      session: Row
      routes: Row[]
    }
    const golden = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/usage-values/golden.json'), 'utf8')
    ) as { cases: Record<string, Case> }
    const price = await loadPricer()
    const tokens = {
      inputTokens: 1000,
      outputTokens: 40,
      cacheReadTokens: 200,
      cacheWriteTokens: 0,
      reasoningTokens: 0
    }
    const db = rawDb(store)
    const cols = (row: Row | undefined, keys: string[]) =>
      Object.fromEntries(keys.map((k) => [k, typeof row?.[k] === 'number' ? +(row[k] as number).toFixed(9) : row?.[k]]))
    for (const [name, c] of Object.entries(golden.cases)) {
      if (name === 'included') continue // a subscription route (openai-codex): no Caduceus provider bills that way
      await store.createSession(name, 'cli', { model: c.createdModel })
      // a session an older Caduceus started: its row names the API mode as billing_mode
      if (name === 'older_caduceus_mode')
        db.prepare('UPDATE sessions SET billing_provider = ?, billing_base_url = ?, billing_mode = ? WHERE id = ?').run(
          c.calls[0]!.provider,
          c.calls[0]!.base_url,
          'chat_completions',
          name
        )
      for (const call of c.calls) {
        const route = { model: call.model, provider: call.provider, baseUrl: call.base_url }
        const p = price(route, tokens)
        await store.recordUsage(name, { ...route, ...tokens, apiCalls: 1, ...p })
      }
      const want = { ...c.session }
      // Caduceus's own status for a session whose calls were priced and unpriced both (upstream keeps the last one's)
      if (name === 'priced_then_unpriced') want.cost_status = 'partial'
      const keys = Object.keys(want).filter((k) => k !== 'pricing_version') // Caduceus names its price table there
      const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(name) as Row
      expect([name, cols(row, keys)]).toEqual([name, cols(want, keys)])
      const routes = db
        .prepare('SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY first_seen, rowid')
        .all(name) as Row[]
      const rkeys = Object.keys(c.routes[0]!)
      expect([name, routes.map((r) => cols(r, rkeys))]).toEqual([name, c.routes.map((r) => cols(r, rkeys))])
    }
  })
})

describe('parentsOf', () => {
  it('names the parent of each id that has one, in one read; unknown and parentless ids are absent', async () => {
    await store.createSession('P', 'cli')
    await store.createSession('C1', 'delegate', { parentSessionId: 'P' })
    await store.createSession('C2', 'delegate', { parentSessionId: 'P' })
    await store.createSession('Q', 'cli')
    const parents = store.parentsOf(['C1', 'C2', 'Q', 'gone', ''])
    expect([...parents].sort()).toEqual([
      ['C1', 'P'],
      ['C2', 'P']
    ])
    expect(store.parentsOf([]).size).toBe(0)
  })
})

describe('what a page shows of the range a caller holds (held)', () => {
  it('counts visible and compacted rows from sinceId through afterId, after another program rewound and compacted', async () => {
    const path = join(tempDir(), 'state.db')
    const own = new SessionStore(path, { profile: 'default' })
    try {
      await own.createSession('s', 'cli')
      const ids = await own.appendMessages(
        's',
        Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }))
      )
      const held = () => own.getMessages({ sessionId: 's', afterId: ids[9]!, sinceId: ids[0]! }).held
      expect(held()).toEqual({ visible: 10, compacted: 0 })
      expect(own.getMessages({ sessionId: 's', afterId: ids[9]! }).held).toBeUndefined()
      // another program: a rewind leaves the last three inactive; a compaction keeps two for display, flagged
      const other = new Database(path)
      other.prepare('UPDATE messages SET active = 0 WHERE id >= ?').run(ids[7])
      other.prepare('UPDATE messages SET active = 0, compacted = 1 WHERE id IN (?, ?)').run(ids[1], ids[2])
      other.close()
      expect(held()).toEqual({ visible: 7, compacted: 2 })
      expect(own.getMessages({ sessionId: 's', afterId: ids[5]!, sinceId: ids[3]! }).held).toEqual({
        visible: 3,
        compacted: 0
      })
    } finally {
      own.close()
    }
  })
})

describe('sessions by their first user message or latest reply (the API server recognising a conversation)', () => {
  it('matches it trimmed, or with context joined by a line break before or after; one source, newest first', async () => {
    const add = async (id: string, source: string, at: number, ...texts: string[]) => {
      await store.createSession(id, source, { startedAt: at })
      await store.appendMessages(
        id,
        texts.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }))
      )
    }
    await add('plain', 'api_server', 1, '  what is new? \n', 'a reply')
    await add('before', 'api_server', 2, 'context: 1 source\nwhat is new?')
    await add('after', 'api_server', 3, 'what is new?\n<source>2</source>')
    await add('inside', 'api_server', 4, 'say: what is new? please')
    await add('later', 'api_server', 5, 'hello', 'a reply', 'what is new?')
    await add('elsewhere', 'cli', 6, 'what is new?')
    expect(store.sessionsOpeningWith('what is new?', 'api_server', 16)).toEqual(['after', 'before', 'plain'])
    expect(store.sessionsOpeningWith('what is new?', 'api_server', 2)).toEqual(['after', 'before'])
    expect(store.sessionsOpeningWith('', 'api_server', 16)).toEqual([])
  })

  it('finds sessions by the end of their latest reply with text, either way round, trimmed; one source, newest first', async () => {
    const add = async (id: string, source: string, at: number, ...msgs: Array<[string, string | null]>) => {
      await store.createSession(id, source, { startedAt: at })
      await store.appendMessages(
        id,
        msgs.map(([role, content]) => ({ role, content }))
      )
    }
    await add('old', 'api_server', 1, ['user', 'q'], ['assistant', '<think>hm</think>the end.  '])
    await add('newer', 'api_server', 2, ['user', 'q'], ['assistant', 'also the end.'], ['assistant', ''])
    await add('moved-on', 'api_server', 3, ['user', 'q'], ['assistant', 'the end.'], ['user', 'q2'], ['assistant', 'x'])
    await add('elsewhere', 'cli', 4, ['user', 'q'], ['assistant', 'the end.'])
    expect(store.sessionsReplyingWith('the end.', 'api_server', 16)).toEqual(['newer', 'old'])
    // the stored reply is the end of the text asked for (a tool turn's text before its call, then the reply)
    expect(store.sessionsReplyingWith('Let me look. So: also the end.', 'api_server', 16)).toEqual(['newer'])
    expect(store.sessionsReplyingWith('', 'api_server', 16)).toEqual([])
  })

  it("leaves out an assistant row v31's _compressed_summary flags: the compressor's text, not a reply", async () => {
    await store.createSession('cont', 'api_server', { startedAt: 5 })
    // a continuation opening with upstream's summary as an assistant message (its flag set), then the next question
    await store.appendMessages('cont', [
      { role: 'assistant', content: 'Earlier: the user asked for the end.', compressedSummary: true },
      { role: 'user', content: 'and then?' }
    ])
    expect(store.sessionsReplyingWith('asked for the end.', 'api_server', 16)).toEqual([])
    expect(store.sessionsWithReply('asked for the end.', 'api_server', 16)).toEqual([])
    await store.appendMessages('cont', [{ role: 'assistant', content: 'Then it asked for the end.' }])
    expect(store.sessionsReplyingWith('asked for the end.', 'api_server', 16)).toEqual(['cont'])
    expect(store.sessionsWithReply('asked for the end.', 'api_server', 16)).toEqual(['cont'])
  })
})
