/**
 * The list follows last activity as upstream defines it (the last message's time) whoever wrote the message:
 * here an older upstream (v21, never touches last_activity_at) appends from another process, and the very next
 * `sessions.list` through the host puts that session first.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../host'
import { createLogger } from '../host/log/log'
import { olderAndNewerV21Home } from './test-fixtures/homes'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { UPSTREAM_APPEND } from './test-fixtures/spawn-writer'

afterAll(cleanupTempDirs)

describe('list order', () => {
  it('a session an older upstream continues in another process rises to the top of the next sessions.list', async () => {
    const root = tempDir()
    const path = olderAndNewerV21Home(root)
    const host = await createHost({
      home: root,
      headless: true,
      live: false,
      validateOutput: true,
      log: createLogger()
    })
    try {
      const ids = async () => {
        const r = await host.dispatcher.invoke('sessions.list', { profile: 'default', limit: 10 })
        return (r as { output: { items: Array<{ id: string; lastActiveAt: number }> } }).output.items
      }
      expect((await ids()).map((s) => s.id)).toEqual(['newer', 'old'])
      execFileSync(process.execPath, [UPSTREAM_APPEND, path, 'old', 'back again'])
      const after = await ids()
      expect(after.map((s) => s.id)).toEqual(['old', 'newer'])
      expect(after[0]!.lastActiveAt).toBeGreaterThan(after[1]!.lastActiveAt)
    } finally {
      await host.close()
    }
  })
})
