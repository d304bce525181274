// The store's half of a compression rotation (compression-publish.ts) against upstream's publish_compression_child
// rules (NousResearch/hermes-agent hermes_state_compression.py and its handoff-timestamp tests): a copy takes its
// original's time once (identical turns stay two), a time the caller gives is kept, the parent's late rows are cloned
// with every column (a v31 home's uids and display identity too), and a parent ended meanwhile publishes nothing.
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './session-store'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

const V31 = resolve(import.meta.dirname, '../../test/fixtures/upstream/nous-v31/state.db')

function store(fixture?: string): { store: SessionStore; path: string } {
  const path = join(tempDir('cad-publish-'), 'state.db')
  if (fixture) copyFileSync(fixture, path)
  return { store: new SessionStore(path, { profile: 'default' }), path }
}

const rows = (path: string, id: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .prepare<[string], Record<string, unknown>>('SELECT * FROM messages WHERE session_id = ? ORDER BY id')
      .all(id)
  } finally {
    db.close()
  }
}

describe('publishCompressionChild', () => {
  it('each parent row lends its time once, in order; a time the caller gives is kept', async () => {
    const { store: s, path } = store()
    await s.createSession('P', 'cli')
    await s.appendMessages('P', [
      { role: 'user', content: 'ok', timestamp: 100 },
      { role: 'assistant', content: 'a1', timestamp: 110 },
      { role: 'user', content: 'ok', timestamp: 120 }
    ])
    await s.publishCompressionChild({
      parentId: 'P',
      childId: 'C',
      source: 'cli',
      session: {},
      watermark: s.messageWatermark('P'),
      messages: [
        { role: 'user', content: 'SUMMARY' },
        { role: 'user', content: 'ok' },
        { role: 'assistant', content: 'a1', timestamp: 555 },
        { role: 'user', content: 'ok' },
        { role: 'user', content: 'ok' }
      ]
    })
    const child = rows(path, 'C')
    expect(child.slice(1).map((r) => r.timestamp)).toEqual([100, 555, 120, expect.any(Number)])
    expect(child[4]!.timestamp as number).toBeGreaterThan(1_000_000)
    expect(s.getSession('P')!.endReason).toBe('compression')
    s.close()
  })

  it("on a v31 home the parent's late rows are cloned with their uids and display identity", async () => {
    const { store: s, path } = store(V31)
    await s.createSession('P', 'cli')
    await s.appendMessages('P', [
      { role: 'user', content: 'question' },
      { role: 'assistant', content: 'answer' }
    ])
    const watermark = s.messageWatermark('P')
    await s.appendMessages('P', [
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', content: 'found', toolCallId: 'call_1', toolName: 'lookup' }
    ])
    const out = await s.publishCompressionChild({
      parentId: 'P',
      childId: 'C',
      source: 'cli',
      session: {},
      watermark,
      messages: [
        { role: 'user', content: 'SUMMARY' },
        { role: 'assistant', content: 'answer' }
      ]
    })
    expect(out.cloned).toBe(2)
    const parent = rows(path, 'P')
    const child = rows(path, 'C')
    const keep = (r: Record<string, unknown>) => {
      const { id: _id, session_id: _s, display_order: _o, ...rest } = r
      return rest
    }
    expect(child.slice(2).map(keep)).toEqual(parent.slice(2).map(keep))
    expect(child[3]!.message_uid).toMatch(/^[0-9a-f]{32}$/)
    expect(s.getSession('C')).toMatchObject({ messageCount: 4, toolCallCount: 1 })
    s.close()
  })

  it("takes none of the parent's model_config: a branch's continuation stays a continuation in the chain walk", async () => {
    // Upstream's continuation stores the compressing agent's own session settings, never the parent's
    // (conversation_compression.compress_context: model_config=agent._session_init_model_config); a copied
    // `_branched_from` (or `_delegate_from`) would make the child a fork, and both programs' chain walks stop there.
    const { store: s } = store()
    await s.createSession('ROOT', 'cli')
    await s.createSession('B', 'cli', {
      parentSessionId: 'ROOT',
      modelConfig: { _branched_from: 'ROOT', gateway_runtime: { provider: 'openrouter' } }
    })
    await s.appendMessage('B', { role: 'user', content: 'branch question' })
    await s.publishCompressionChild({
      parentId: 'B',
      childId: 'C',
      source: 'desktop',
      session: {},
      watermark: s.messageWatermark('B'),
      messages: [{ role: 'user', content: 'SUMMARY' }]
    })
    expect(s.getSession('C')!.modelConfig).toBeNull()
    expect(s.resolveResumeSessionId('B')).toBe('C')
    s.close()
  })

  it('a parent another program ended meanwhile publishes nothing', async () => {
    const { store: s, path } = store()
    await s.createSession('P', 'cli')
    await s.appendMessage('P', { role: 'user', content: 'question' })
    const other = new Database(path)
    other.prepare("UPDATE sessions SET ended_at = 1, end_reason = 'cli_close' WHERE id = 'P'").run()
    other.close()
    await expect(
      s.publishCompressionChild({
        parentId: 'P',
        childId: 'C',
        source: 'cli',
        session: {},
        watermark: 0,
        messages: [{ role: 'user', content: 'SUMMARY' }]
      })
    ).rejects.toThrow(/already ended/)
    expect(s.getSession('C')).toBeNull()
    expect(s.getSession('P')!.endReason).toBe('cli_close')
    s.close()
  })
})
