// The built-in memory files as another process writes them (upstream's memory tool): the watch wakes on the folder,
// the tick covers a folder that appears later, and only a change to MEMORY.md / USER.md (or to config.yaml, which
// holds their limits) is announced.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'
import { MemoryFolderWatch } from './memory-watch'

afterAll(cleanupTempDirs)

describe('MemoryFolderWatch', () => {
  it('announces a rewrite of MEMORY.md or USER.md, and not a lock or temp file beside them', async () => {
    const home = tempDir('cad-memwatch-')
    const dir = join(home, 'memories')
    mkdirSync(dir)
    writeFileSync(join(dir, 'MEMORY.md'), 'likes tea')
    let changes = 0
    const w = new MemoryFolderWatch(home, () => changes++, { settleMs: 10 }).start()
    try {
      writeFileSync(join(dir, 'MEMORY.md.lock'), '')
      writeFileSync(join(dir, '.tmp-x'), 'staged')
      w.check()
      expect(changes).toBe(0)
      // upstream writes a temp file and renames it over the target
      renameSync(join(dir, '.tmp-x'), join(dir, 'USER.md'))
      await expect.poll(() => changes, { timeout: 10_000, interval: 20 }).toBe(1)
      w.check()
      expect(changes).toBe(1)
    } finally {
      w.stop()
    }
  })

  it("announces a rewrite of the profile's config.yaml (the files' char limits), and not state.db beside it", async () => {
    const home = tempDir('cad-memwatch-')
    mkdirSync(join(home, 'memories'))
    writeFileSync(join(home, 'config.yaml'), 'model: x\n')
    let changes = 0
    const w = new MemoryFolderWatch(home, () => changes++, { settleMs: 10 }).start()
    try {
      writeFileSync(join(home, 'state.db-wal'), 'a turn')
      w.check()
      expect(changes).toBe(0)
      // written as Settings and upstream's save_config write it: a temp file renamed over it
      writeFileSync(join(home, '.config.tmp'), 'model: x\nmemory:\n  memory_char_limit: 4000\n')
      renameSync(join(home, '.config.tmp'), join(home, 'config.yaml'))
      await expect.poll(() => changes, { timeout: 10_000, interval: 20 }).toBe(1)
    } finally {
      w.stop()
    }
  })

  it('a folder created after it started is checked by the tick, then watched', async () => {
    const home = tempDir('cad-memwatch-')
    let changes = 0
    const w = new MemoryFolderWatch(home, () => changes++, { settleMs: 10, fallbackMs: 100 }).start()
    try {
      mkdirSync(join(home, 'memories'))
      writeFileSync(join(home, 'memories', 'MEMORY.md'), 'first entry')
      await expect.poll(() => changes, { timeout: 10_000, interval: 20 }).toBe(1)
      writeFileSync(join(home, 'memories', 'MEMORY.md'), 'first entry\n§\nsecond entry')
      await expect.poll(() => changes, { timeout: 10_000, interval: 20 }).toBe(2)
    } finally {
      w.stop()
    }
  })
})
