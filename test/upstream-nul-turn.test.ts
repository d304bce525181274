// A turn whose text holds a NUL byte (a binary tool output, a client's "\u0000", upstream's multimodal marker) is
// indexed as upstream's SQLite indexes it: the system Python's SQLite (3.40) passes the FTS integrity-check on the
// home right after the turn, and again after it deletes the session itself, as upstream's delete_session does.
// Before, a live turn's NUL row left messages_fts_trigram "malformed" for 3.40, and its delete damaged it for good.
import { copyFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { startApiServer } from '../src-main/channels'
import { apiConversations } from '../src-main/host/app-channels'
import { apiHostHome } from '../src-main/channels/test-fixtures/api-home'
import { ftsIntegrity, hasSystemPython } from './support/fts-integrity'

const EMPTY_UPSTREAM = join(resolve(import.meta.dirname), 'fixtures/upstream/import-rules/empty.db')
const check = ftsIntegrity

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe.skipIf(!hasSystemPython)('a NUL-holding turn on an upstream home', () => {
  it("keeps every FTS index whole for upstream's SQLite, before and after upstream deletes the session", async () => {
    const provider = await startScriptedProvider({ handler: () => ({ text: 'binary\u0000tail of the okapi dump' }) })
    const { root, host } = await apiHostHome({
      prefix: 'cad-nul-turn-',
      baseUrl: provider.baseUrl,
      key: 'k-nul-turn-0123456789',
      before: (home) => copyFileSync(EMPTY_UPSTREAM, join(home, 'state.db'))
    })
    dirs.push(root)
    const server = await startApiServer({
      gateway: host.gateway,
      vault: host.vault,
      profile: 'default',
      home: root,
      port: 0,
      sessions: apiConversations(host.stores, 'default')
    })
    try {
      const r = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer k-nul-turn-0123456789', 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'show the okapi\u0000 file' }] })
      })
      expect(r.status).toBe(200)
      const sid = r.headers.get('x-hermes-session-id')!
      const db = join(root, 'state.db')
      const tables = check(db)
      expect(Object.keys(tables).length).toBeGreaterThan(1)
      expect(
        Object.values(tables).every((v) => v === 'ok'),
        JSON.stringify(tables)
      ).toBe(true)
      const afterDelete = check(db, sid)
      expect(
        Object.values(afterDelete).every((v) => v === 'ok'),
        JSON.stringify(afterDelete)
      ).toBe(true)
    } finally {
      await server.close()
      await host.close()
      await provider.close()
    }
  })
})
