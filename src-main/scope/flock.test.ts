import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { withFlock } from './index'

// Another program's view of the lock: a non-blocking flock(2), what upstream's fcntl.flock(LOCK_EX | LOCK_NB) asks.
const othersCanLock = (file: string) => spawnSync('flock', ['-n', '-E', '9', file, 'true']).status === 0

const opts = {
  waitMs: 300,
  onTimeout: () => new Error('timed out'),
  onFailure: (why: string) => new Error(`failed: ${why}`)
}

describe('withFlock', () => {
  it('holds the lock for the whole change, against another process, and lets go after, also on a throw', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cad-flock-')), '.jobs.lock')
    const during = await withFlock(
      file,
      async () => {
        await new Promise((r) => setTimeout(r, 20)) // past the helper's exit: the lock is the descriptor's, not its
        return othersCanLock(file)
      },
      { ...opts, mode: 0o640 }
    )
    expect(during).toBe(false)
    expect(othersCanLock(file)).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o640)
    await expect(withFlock(file, () => Promise.reject(new Error('boom')), opts)).rejects.toThrow('boom')
    expect(othersCanLock(file)).toBe(true)
  })

  it('waits for a holder, refuses past the wait, and nests as two holders (so a change never re-enters its own lock)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cad-flock-')), 'MEMORY.md.lock')
    await expect(withFlock(file, () => withFlock(file, () => 'inner', opts), opts)).rejects.toThrow('timed out')
    expect(othersCanLock(file)).toBe(true)
    const missing = join(file, '..', 'nope', 'x.lock')
    await expect(withFlock(missing, () => 1, opts)).rejects.toThrow(/ENOENT/)
    expect(existsSync(missing)).toBe(false)
  })
})
