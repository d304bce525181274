// Profile files that are there but cannot be read, through the host's own requests: each is a named problem on the
// surfaces that already show profile problems (profiles.list / app.info → the rail; sessions.list's `unavailable`),
// never read as absent. Root reads a mode-0 file, so "cannot be read" is made here the way it fails for every user:
// a folder where the file should be, or a symlink loop (each stands in for EACCES).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ProfileInfo, SessionPage } from '@shared/contract'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

function makeHome(): string {
  const root = mkdtempSync(join(tmpdir(), 'cad-profile-problems-'))
  made.push(root)
  // `hermes profile use` not readable: the default profile stands in, and says why.
  mkdirSync(join(root, 'active_profile'))
  // state.db a symlink loop (stat fails with ELOOP, as it fails with EACCES under a folder this user may not search)
  // AND config.yaml a folder: both problems must be named.
  const both = join(root, 'profiles', 'both')
  mkdirSync(both, { recursive: true })
  symlinkSync(join(both, 'state.db'), join(both, 'state.db'))
  mkdirSync(join(both, 'config.yaml'))
  // SOUL.md and .env not readable.
  const files = join(root, 'profiles', 'files')
  mkdirSync(join(files, 'SOUL.md'), { recursive: true })
  mkdirSync(join(files, '.env'))
  mkdirSync(join(root, 'profiles', 'fine'))
  writeFileSync(join(root, 'profiles', 'fine', 'SOUL.md'), 'You are terse.\n')
  return root
}

describe('profile files that cannot be read are named, never read as absent', () => {
  it('state.db that cannot be stat-ed, config.yaml, SOUL.md, .env and active_profile each show as a problem', async () => {
    const root = makeHome()
    const host = await createHost({
      home: root,
      headless: true,
      live: false,
      validateOutput: true,
      log: createLogger()
    })
    const call = async <T>(name: string, input: unknown): Promise<T> => {
      const r = await host.dispatcher.invoke(name as never, input as never)
      if (!r.ok) throw new Error(JSON.stringify(r))
      return (r as unknown as { output: T }).output
    }
    try {
      const profiles = await call<ProfileInfo[]>('profiles.list', {})
      const of = (n: string) => profiles.find((p) => p.name === n)!

      // Not "no state.db yet" (an empty profile with 0 sessions): the file is there and cannot be reached.
      expect(of('both').error).toMatch(/ELOOP.*both.state\.db/)
      // … and the config.yaml problem is named too, not hidden behind the first.
      expect(of('both').notice).toMatch(/cannot read .*both.config\.yaml/)

      expect(of('files').error).toBeUndefined()
      expect(of('files').notice).toMatch(
        /files.SOUL\.md cannot be read \(EISDIR.*\): the agent runs without its persona/
      )
      expect(of('files').notice).toMatch(/files.\.env cannot be read \(EISDIR.*\): its keys and settings are not used/)

      expect(of('default').isActive).toBe(true)
      expect(of('default').notice).toMatch(/active_profile cannot be read \(EISDIR.*\), so the default profile is used/)
      expect(of('fine').notice).toBeUndefined()
      const info = await call<{ profiles: ProfileInfo[] }>('app.info', {})
      expect(info.profiles.find((p) => p.name === 'files')?.notice).toBe(of('files').notice)

      // The Sessions list under "All" leaves the profile out and says why.
      const page = await call<SessionPage>('sessions.list', { profile: 'all' })
      expect(page.unavailable).toEqual([{ profile: 'both', reason: expect.stringMatching(/ELOOP/) }])
    } finally {
      await host.close()
    }
  })
})
