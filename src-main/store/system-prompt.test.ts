/**
 * Issue 21 item 5: the system prompt a turn used is stored as upstream stores it — inline in an older home
 * (golden v21 data), `system_prompts` + hash in a current one — overwritten when it changes, and read back
 * for the session page.
 */
import Database from 'better-sqlite3'
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/v21-two-profiles/state.db')
const stores: SessionStore[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  cleanupTempDirs()
})
const raw = (path: string, sql: string, ...args: unknown[]) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare(sql).get(...args) as Record<string, unknown>
  } finally {
    db.close()
  }
}

describe('the system prompt of a session', () => {
  it('an older home: upstream’s inline column, overwritten when the prompt changes', async () => {
    const path = join(tempDir(), 'state.db')
    copyFileSync(GOLDEN, path)
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    stores.push(store)
    const sid = '20260101_090000_aa01'
    expect(store.getSessionDetail(sid)?.systemPrompt).toBe('You are Hermes, the default persona. Be brief.')
    expect(await store.setSystemPrompt(sid, 'Persona\n\nMemory: likes tea')).toBe(true)
    expect(raw(path, 'SELECT system_prompt FROM sessions WHERE id = ?', sid).system_prompt).toBe(
      'Persona\n\nMemory: likes tea'
    )
    expect(raw(path, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'system_prompts'").n).toBe(0)
    expect(await store.setSystemPrompt(sid, 'Persona\n\nMemory: likes tea')).toBe(false) // unchanged: no write
    expect(store.getSessionDetail(sid)?.systemPrompt).toBe('Persona\n\nMemory: likes tea')
  })

  it('a current home: one system_prompts row by sha256, the session points at the latest', async () => {
    const path = join(tempDir(), 'state.db')
    const store = new SessionStore(path, { profile: 'default' })
    stores.push(store)
    await store.createSession('s1', 'desktop')
    await store.setSystemPrompt('s1', 'first prompt')
    await store.setSystemPrompt('s1', 'second prompt')
    const row = raw(path, 'SELECT system_prompt, system_prompt_hash FROM sessions WHERE id = ?', 's1')
    expect(row.system_prompt).toBeNull()
    expect(row.system_prompt_hash).toBe(
      raw(path, 'SELECT hash FROM system_prompts WHERE prompt = ?', 'second prompt').hash
    )
    expect(store.getSessionDetail('s1')?.systemPrompt).toBe('second prompt')
  })
})
