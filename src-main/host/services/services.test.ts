// The host's sessions.changed as another process's writes make it: a child's change names its parent, so a page open
// on the parent hears of a delegate it does not list yet (the watcher itself knows only the ids that changed).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventPayload } from '@shared/contract'
import { createHost } from '..'
import { createLogger } from '../log/log'
import { SessionStore } from '../../store'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'

afterAll(cleanupTempDirs)

describe('memory.changed', () => {
  it("is emitted when another process edits a profile's MEMORY.md", async () => {
    const home = tempDir('cad-memory-changed-')
    mkdirSync(join(home, 'memories'))
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: unknown[] = []
    const off = host.bus.subscribe((e) => {
      if (e.event === 'memory.changed') events.push(e.payload)
    })
    try {
      writeFileSync(join(home, 'memories', 'MEMORY.md'), 'written by upstream')
      await expect.poll(() => events, { timeout: 10_000, interval: 20 }).toEqual([{ profile: 'default' }])
    } finally {
      off()
      await host.close()
    }
  })
})

describe('sessions.changed', () => {
  it("names the parents of the changed sessions: another process's delegate of an open session", async () => {
    const home = tempDir('cad-parents-')
    const other = new SessionStore(join(home, 'state.db'))
    await other.createSession('P', 'cli', { title: 'parent' })
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: Array<EventPayload<'sessions.changed'>> = []
    const off = host.bus.subscribe((e) => {
      const ev = e as { event: string; payload: EventPayload<'sessions.changed'> }
      if (ev.event === 'sessions.changed') events.push(ev.payload)
    })
    try {
      const seen = (ids: string[]) =>
        expect.poll(() => events.find((e) => e.sessionIds.join() === ids.join()), { timeout: 10_000, interval: 20 })
      await other.createSession('C', 'delegate', { parentSessionId: 'P', modelConfig: { _delegate_from: 'P' } })
      await seen(['C']).toEqual({ profile: 'default', sessionIds: ['C'], parentIds: ['P'] })
      await other.appendMessage('P', { role: 'user', content: 'no parent of its own' })
      await seen(['P']).toEqual({ profile: 'default', sessionIds: ['P'] })
    } finally {
      off()
      other.close()
      await host.close()
    }
  })
})
