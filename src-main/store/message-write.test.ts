import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { IDENTITY_COLUMNS } from './message-identity'

afterAll(cleanupTempDirs)
let store: SessionStore
beforeEach(() => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
})
afterEach(() => store.close())

const columns = () =>
  (rawDb(store).prepare('PRAGMA table_info(messages)').all() as Array<{ name: string }>).map((c) => c.name)
const row = (id: number) =>
  rawDb(store).prepare('SELECT * FROM messages WHERE id = ?').get(id) as Record<string, unknown>

describe('message rows in upstream append_message shapes', () => {
  const assistant = {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'c1', name: 'look', arguments: '{"q":"héllo → ✓ 😀"}' }],
    reasoning: 'thinking — hard',
    reasoningContent: 'thinking — hard',
    reasoningDetails: [{ type: 'thinking', thinking: 'thinking — hard', signature: 'sig' }]
  }

  it('writes tool_calls and reasoning_details as json.dumps does, and reasoning_content', async () => {
    await store.createSession('s', 'cli')
    const id = await store.appendMessage('s', assistant)
    const r = row(id)
    expect(r.tool_calls).toBe(
      '[{"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{\\"q\\":\\"h\\u00e9llo \\u2192 \\u2713 \\ud83d\\ude00\\"}"}}]'
    )
    expect(r.content).toBe('')
    expect(r.reasoning_content).toBe('thinking — hard')
    expect(r.reasoning_details).toBe('[{"type": "thinking", "thinking": "thinking \\u2014 hard", "signature": "sig"}]')
  })

  it("a model's calls carry upstream's call_id and response_item_id; a client's history does not", async () => {
    // upstream's _derive_responses_function_call_id for each id (run at the commit the goldens name)
    const upstream: Record<string, string> = {
      call_abc: 'fc_abc',
      toolu_01X: 'fc_toolu_01X',
      fc_9: 'fc_9',
      call_: 'fc_call_',
      'a b/c': 'fc_abc',
      '€€': 'fc_102ce2646bd9209c78f2d88f',
      ['x'.repeat(60)]: `fc_${'x'.repeat(48)}`,
      'call_a.b': 'fc_a.b'
    }
    await store.createSession('s', 'cli')
    const toolCalls = Object.keys(upstream).map((id) => ({ id, name: 'look', arguments: '{}' }))
    const made = JSON.parse(
      String(row(await store.appendMessage('s', { role: 'assistant', toolCalls, modelCalls: true })).tool_calls)
    )
    expect(made.map((c: Record<string, string>) => [c.id, c.call_id, c.response_item_id])).toEqual(
      Object.entries(upstream).map(([id, item]) => [id, id, item])
    )
    expect(Object.keys(made[0])).toEqual(['id', 'call_id', 'response_item_id', 'type', 'function'])
    const given = JSON.parse(String(row(await store.appendMessage('s', { role: 'assistant', toolCalls })).tool_calls))
    expect(Object.keys(given[0])).toEqual(['id', 'type', 'function'])
  })

  it('a home without the reasoning_content / reasoning_details columns keeps its shape and still takes the row', async () => {
    await store.createSession('s', 'cli')
    const db = rawDb(store)
    for (const c of ['reasoning_content', 'reasoning_details']) db.exec(`ALTER TABLE messages DROP COLUMN ${c}`)
    const id = await store.appendMessage('s', assistant)
    expect(columns()).not.toContain('reasoning_content')
    expect(columns()).not.toContain('reasoning_details')
    expect(row(id)).toMatchObject({ role: 'assistant', reasoning: 'thinking — hard' })
  })
})

describe('a schema another program changes under an open store', () => {
  it("columns added after this connection's writes and reads are written and read from the next call", async () => {
    // No identity columns yet. One write and one read first, so the columns are known on this connection.
    await store.createSession('s', 'cli')
    await store.appendMessage('s', { role: 'user', content: 'before' })
    expect(store.getMessagesAsConversation('s')[0]!.identity).toBeUndefined()
    // Another program (upstream's v31 migration) adds the four identity columns while the store is open.
    const other = new Database(store.path)
    try {
      for (const c of IDENTITY_COLUMNS) other.exec(`ALTER TABLE messages ADD COLUMN ${c} TEXT`)
    } finally {
      other.close()
    }
    const id = await store.appendMessage('s', { role: 'assistant', content: 'after' })
    const uid = rawDb(store).prepare<[number], string>('SELECT message_uid FROM messages WHERE id = ?').pluck().get(id)
    expect(uid).toMatch(/^[0-9a-f]{32}$/)
    expect(store.getMessagesAsConversation('s')[1]!.identity?.messageUid).toBe(uid)
  })
})
