// Two hosts in one process (tests build several; a `caduceus serve` beside the app's own would too) keep their own
// state: what one host was given reaches neither the other's stores nor its memory guard nor its profile names.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from './create-host'
import { createLogger } from '../log/log'
import { SessionStore } from '../../store'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'

afterAll(cleanupTempDirs)

async function homeWithSession(prefix: string, id: string): Promise<string> {
  const home = tempDir(prefix)
  const store = new SessionStore(join(home, 'state.db'))
  await store.createSession(id, 'cli', { title: id })
  store.close()
  return home
}

const host = (home: string, extra: { nativeBinding?: string } = {}) =>
  createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger(), ...extra })

async function listed(h: Host): Promise<string[] | string> {
  const r = (await h.dispatcher.invoke('sessions.list', { profile: 'default' })) as {
    ok: boolean
    output?: { items: Array<{ id: string }> }
    error?: { message: string }
  }
  return r.ok ? r.output!.items.map((s) => s.id) : r.error!.message
}

describe('two hosts in one process', () => {
  it("load each their own better-sqlite3 build: one host's binding never reaches the other's stores", async () => {
    const a = await host(await homeWithSession('cad-two-a-', 'in-a'), { nativeBinding: '/nonexistent/addon.node' })
    const b = await host(await homeWithSession('cad-two-b-', 'in-b'))
    try {
      expect(await listed(b)).toEqual(['in-b'])
      // A's stores load the build A was given (here one that is not there), so A cannot read its own file.
      expect(await listed(a)).toMatch(/nonexistent/)
    } finally {
      await a.close()
      await b.close()
    }
  })
})
