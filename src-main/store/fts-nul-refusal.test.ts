/**
 * A marked (NUL-prefixed multimodal) row whose recorded FTS token count matches neither tokenization Caduceus
 * knows (its own SQLite's, nor upstream's 3.40 "up to the NUL") cannot be removed exactly: `sessions.delete`
 * through the host refuses with a clear reason and changes nothing — the session, its rows and every FTS
 * table's bookkeeping stay as they were — instead of guessing and corrupting the index.
 */
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../host'
import { createLogger } from '../host/log/log'
import { makeHome, upstream } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

const MARKED =
  '\u0000json:[{"type":"text","text":"look at this chart"},{"type":"image_url","image_url":{"url":"x.png"}}]'

describe('FTS rows neither tokenization matches', () => {
  it('sessions.delete refuses and changes nothing', async () => {
    const root = tempDir()
    const path = makeHome(root, 21)
    const raw = new Database(path)
    const up = upstream(raw, 21)
    up.createSession('mm')
    const id = up.append('mm', 'user', MARKED)
    up.append('mm', 'assistant', 'a plain reply')
    // the trigram index recorded a token count for that row no tokenization reproduces (another SQLite's)
    raw.unsafeMode(true)
    raw.prepare('UPDATE messages_fts_trigram_docsize SET sz = ? WHERE id = ?').run(Buffer.from([0x03]), id)
    raw.unsafeMode(false)
    const snapshot = () => ({
      messages: raw.prepare("SELECT id, content FROM messages WHERE session_id = 'mm' ORDER BY id").all(),
      session: raw.prepare("SELECT id FROM sessions WHERE id = 'mm'").all(),
      docsize: raw.prepare('SELECT id, hex(sz) AS sz FROM messages_fts_trigram_docsize ORDER BY id').all(),
      words: raw.prepare('SELECT id, hex(sz) AS sz FROM messages_fts_docsize ORDER BY id').all()
    })
    const before = snapshot()
    const host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
    try {
      const r = await host.dispatcher.invoke('sessions.delete', { profile: 'default', sessionId: 'mm' })
      expect(r.ok).toBe(false)
      if (r.ok) return
      expect(r.error.code).toBe('refused')
      expect(r.error.message).toMatch(new RegExp(`message ${id} in messages_fts_trigram .*cannot reproduce`))
      expect(r.error.message).toContain('nothing was changed')
    } finally {
      await host.close()
    }
    expect(snapshot()).toEqual(before)
    raw.close()
  })
})
