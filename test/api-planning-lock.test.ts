// The API server's conversation planning (a request without a session header) on a rollback-journal home while a
// real second process holds BEGIN EXCLUSIVE: the planning's reads wait the lock out (off the event loop) instead of
// failing the request, and two requests planned through the lock still claim one session each.
import { rmSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startApiServer } from '../src-main/channels'
import { createHost } from '../src-main/host'
import { apiConversations } from '../src-main/host/app-channels'
import { createLogger } from '../src-main/host/log/log'
import { holdJournalLock, makeDeleteJournalHome } from './fixtures/journal-lock'

const KEY = 'hk_planning_lock_key'
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function serve() {
  const home = mkdtempSync(join(tmpdir(), 'cad-api-lock-'))
  cleanups.push(() => rmSync(home, { recursive: true, force: true }))
  makeDeleteJournalHome(home)
  writeFileSync(join(home, '.env'), `API_SERVER_KEY=${KEY}\nAPI_SERVER_PORT=0\n`, { mode: 0o600 })
  process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
  const host = await createHost({ home, headless: true, live: false, log: createLogger() })
  cleanups.push(() => host.close())
  const server = await startApiServer({
    gateway: host.gateway,
    vault: host.vault,
    profile: 'default',
    home,
    port: 0,
    sessions: apiConversations(host.stores, 'default')
  })
  cleanups.push(() => server.close())
  const ask = async (text: string) => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: text }] })
    })
    const body = (await res.json()) as { choices?: Array<{ message: { content: string } }>; error?: unknown }
    return { status: res.status, sessionId: res.headers.get('x-hermes-session-id'), body }
  }
  return { home, ask }
}

describe('API conversation planning while another program commits (rollback journal)', () => {
  it('waits for the exclusive lock, then answers; two requests planned through it claim a session each', async () => {
    const { home, ask } = await serve()
    const lock = holdJournalLock(join(home, 'state.db'), 0, 600)
    cleanups.push(() => lock.phase('released'))
    await lock.phase('exclusive')
    const [a, b] = await Promise.all([ask('hello through the lock'), ask('hello through the lock')])
    for (const r of [a, b]) {
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.choices?.[0]?.message.content).toContain('hello through the lock')
    }
    // The same first message: one request takes the conversation's own id, the other starts its own session.
    expect(a.sessionId).not.toBe(b.sessionId)
    expect([a.sessionId, b.sessionId].filter((s) => /^api-[0-9a-f]{16}$/.test(s ?? ''))).toHaveLength(2)
  }, 30_000)
})
