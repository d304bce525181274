import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionPage } from '@shared/contract'
import { discoverProfiles, StoreRegistry } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

describe('discoverProfiles', () => {
  it('lists default (even without a db) and valid named profiles, skipping dot-names, bad names and tombstones', () => {
    const root = tempDir()
    for (const n of ['work', 'research', '.hidden', 'Bad Name', 'gone'])
      mkdirSync(join(root, 'profiles', n), { recursive: true })
    mkdirSync(join(root, 'profiles', '.deleted'), { recursive: true })
    writeFileSync(join(root, 'profiles', '.deleted', 'gone'), 'deleted\n')
    writeFileSync(join(root, 'profiles', 'not-a-dir'), 'x')
    expect(discoverProfiles(root)).toEqual([
      { name: 'default', home: root, dbPath: join(root, 'state.db') },
      {
        name: 'research',
        home: join(root, 'profiles', 'research'),
        dbPath: join(root, 'profiles', 'research', 'state.db')
      },
      { name: 'work', home: join(root, 'profiles', 'work'), dbPath: join(root, 'profiles', 'work', 'state.db') }
    ])
    expect(discoverProfiles(join(root, 'missing')).map((p) => p.name)).toEqual(['default'])
  })
})

describe('StoreRegistry', () => {
  it('opens stores lazily, stamps the owning profile, refreshes and merges lists across profiles', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'profiles', 'work'), { recursive: true })
    const reg = new StoreRegistry(root)
    expect(reg.opened()).toEqual([])
    const work = reg.get('work')
    expect(reg.get('work')).toBe(work)
    await work.createSession('w1', 'cli', { startedAt: 300 })
    expect(work.getSession('w1')!.profileName).toBe('work')
    const def = reg.get('default')
    await def.createSession('d1', 'cli', { startedAt: 200 })
    await def.createSession('d2', 'cli', { startedAt: 400 })
    expect(() => reg.get('nope')).toThrow(/Unknown profile/)

    mkdirSync(join(root, 'profiles', 'late'), { recursive: true })
    expect(reg.refresh()).toEqual(['late'])
    await reg.get('late').createSession('l1', 'cli', { startedAt: 100 })

    const seen: Array<[string, string]> = []
    let cursor: string | null = null
    do {
      const page: SessionPage = reg.listAll({ limit: 1, cursor })
      SessionPage.parse(page)
      seen.push(...page.items.map((s) => [s.profile, s.id] as [string, string]))
      cursor = page.nextCursor
    } while (cursor && seen.length < 10)
    expect(seen).toEqual([
      ['default', 'd2'],
      ['work', 'w1'],
      ['default', 'd1'],
      ['late', 'l1']
    ])
    reg.closeAll()
    expect(reg.opened()).toEqual([])
  })

  it('after closeAll nothing opens or writes: a late write into a home deleted since re-makes no folder nor state.db', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'profiles', 'work'), { recursive: true })
    const told: string[] = []
    const reg = new StoreRegistry(root, { onClosedUse: (m) => void told.push(m) })
    const work = reg.get('work')
    await work.createSession('w1', 'cli')
    reg.closeAll()
    // the user deletes the profile's folder once the host said it closed; a task the host started writes after that
    rmSync(join(root, 'profiles', 'work'), { recursive: true })
    await expect(work.createSession('w2', 'cli')).rejects.toMatchObject({
      code: 'unavailable',
      name: 'StoreClosedError'
    })
    expect(() => reg.get('default')).toThrow(/closed/)
    // a late read is refused the same clear way (was better-sqlite3's "The database connection is not open"), through
    // the store's own reads and the repositories' alike
    const closedRead = {
      code: 'unavailable',
      name: 'StoreClosedError',
      message: expect.stringMatching(/nothing was read/)
    }
    expect(() => work.listSessions()).toThrow(expect.objectContaining(closedRead))
    expect(() => work.getSession('w1')).toThrow(expect.objectContaining(closedRead))
    expect(() => work.costRepo().session('w1')).toThrow(expect.objectContaining(closedRead))
    expect(existsSync(join(root, 'profiles', 'work'))).toBe(false)
    expect(existsSync(join(root, 'state.db'))).toBe(false)
    // said once, however many uses follow
    expect(told).toEqual([expect.stringMatching(/^Profile 'work': its state\.db was closed/)])
  })
})
