// A profile whose config.yaml cannot be read (not YAML, a list at the top, unreadable) through the host's own
// requests: the read side names the file, the line and the reason instead of showing defaults as the profile's
// settings, and looking changes nothing in the profile (no repaired file, no `.corrupt.*.bak` snapshot).
// Beside it, the other profile files that can be there yet unreadable (state.db, SOUL.md, .env, active_profile) are
// named problems of their profile too, never read as absent.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { MemoryProviderState, ProfileInfo, ProfileSettings, SessionPage } from '@shared/contract'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'
import { startServe } from './helpers/serve-process'

afterAll(() => cleanupTempDirs())

const BROKEN = 'model:\n  default: gpt-4o\n  provider: [unclosed\nmemory: {provider: holographic\n'
const LIST = '# a list, not a mapping\n- model: gpt-4o\n- memory: holographic\n'

function makeHome(): string {
  const root = tempDir('cad-brokencfg-')
  writeFileSync(
    join(root, 'config.yaml'),
    'model:\n  default: gpt-4o\n  provider: openai\nmemory:\n  provider: holographic\n'
  )
  for (const [name, text] of [
    ['broken', BROKEN],
    ['listy', LIST]
  ]) {
    mkdirSync(join(root, 'profiles', name), { recursive: true })
    writeFileSync(join(root, 'profiles', name, 'config.yaml'), text)
  }
  // unreadable whoever runs the test (root reads a mode-0 file): a folder where the file should be
  mkdirSync(join(root, 'profiles', 'locked', 'config.yaml'), { recursive: true })
  mkdirSync(join(root, 'profiles', 'locked', '.env')) // its .env too: turns refused, said at start like config.yaml
  return root
}

/** Every config.yaml* file of the home with its bytes and mtime: what viewing must leave as it was. */
function configFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const dir of [root, ...readdirSync(join(root, 'profiles')).map((n) => join(root, 'profiles', n))])
    for (const f of readdirSync(dir).filter((n) => n.startsWith('config.yaml'))) {
      const p = join(dir, f)
      const st = statSync(p)
      out[p] = `${st.size}:${st.mtimeMs}:${st.mode}`
    }
  return out
}

/**
 * More profile files that are there but cannot be read, each a named problem on profiles.list / app.info (the rail),
 * never read as absent. A symlink loop or a folder stands in for EACCES, which root never meets.
 */
function addUnreadableFiles(root: string): void {
  // `hermes profile use` not readable: the default profile stands in, and says why.
  mkdirSync(join(root, 'active_profile'))
  // state.db that cannot be stat-ed (not "no state.db yet") AND config.yaml a folder: both named.
  const both = join(root, 'profiles', 'both')
  mkdirSync(both, { recursive: true })
  symlinkSync(join(both, 'state.db'), join(both, 'state.db'))
  mkdirSync(join(both, 'config.yaml'))
  const files = join(root, 'profiles', 'files')
  mkdirSync(join(files, 'SOUL.md'), { recursive: true })
  mkdirSync(join(files, '.env'))
}

describe("a profile's config.yaml that cannot be read, on the read side", () => {
  it('settings, memory provider and profile list name the file, line and reason; nothing is written', async () => {
    const root = makeHome()
    addUnreadableFiles(root)
    const before = configFiles(root)
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
      const good = await call<ProfileSettings>('settings.get', { profile: 'default' })
      expect(good).toMatchObject({ provider: 'openai', model: 'gpt-4o' })
      expect(good.configError).toBeUndefined()

      const broken = await call<ProfileSettings>('settings.get', { profile: 'broken' })
      const brokenPath = join(root, 'profiles', 'broken', 'config.yaml')
      expect(broken.configError).toMatchObject({ path: brokenPath, line: expect.any(Number) })
      expect(broken.configError!.message).toContain(brokenPath)
      expect(broken.configError!.message).toContain(`line ${broken.configError!.line}`)
      // not the defaults (openrouter, anthropic/claude-sonnet-4) passed off as this profile's
      expect(broken).toMatchObject({ provider: '', baseUrl: '', model: '' })

      const listy = await call<ProfileSettings>('settings.get', { profile: 'listy' })
      expect(listy.configError).toMatchObject({ line: 2 })
      expect(listy.configError!.message).toMatch(/must be a mapping at the top level \(.*listy.*, line 2\), not a list/)
      expect(listy.model).toBe('')

      const locked = await call<ProfileSettings>('settings.get', { profile: 'locked' })
      expect(locked.configError!.message).toMatch(/cannot read .*locked.*config\.yaml/)
      expect(locked.model).toBe('')

      const mem = await call<MemoryProviderState>('memory.providers', { profile: 'broken' })
      expect(mem.configured).toBeNull()
      expect(mem.configError).toEqual(broken.configError)
      expect((await call<MemoryProviderState>('memory.providers', { profile: 'default' })).configError).toBeUndefined()

      const profiles = await call<ProfileInfo[]>('profiles.list', {})
      const notice = (n: string) => profiles.find((p) => p.name === n)?.notice
      const of = (n: string) => profiles.find((p) => p.name === n)!
      // default's own config.yaml is fine: its one notice is the active_profile it stands in for
      expect(of('default').isActive).toBe(true)
      expect(notice('default')).toMatch(
        /^\S*active_profile cannot be read \(EISDIR.*\), so the default profile is used$/
      )
      expect(of('both').error).toMatch(/ELOOP.*both.state\.db/)
      expect(notice('both')).toMatch(/cannot read .*both.config\.yaml/)
      expect(of('files').error).toBeUndefined()
      expect(notice('files')).toMatch(/files.SOUL\.md cannot be read \(EISDIR.*\): the agent runs without its persona/)
      expect(notice('files')).toMatch(/files.\.env cannot be read \(EISDIR.*\): its keys and settings are not used/)
      // The Sessions list under "All" leaves the unstattable profile out and says why.
      const page = await call<SessionPage>('sessions.list', { profile: 'all' })
      expect(page.unavailable).toEqual([{ profile: 'both', reason: expect.stringMatching(/ELOOP/) }])
      expect(notice('broken')).toBe(broken.configError!.message)
      expect(notice('listy')).toBe(listy.configError!.message)
      const info = await call<{ profiles: ProfileInfo[] }>('app.info', {})
      expect(info.profiles.find((p) => p.name === 'broken')?.notice).toBe(broken.configError!.message)

      // Save still refuses, with the same file named.
      const save = await host.dispatcher.invoke('settings.update', { profile: 'broken', model: 'gpt-4o-mini' })
      expect(save.ok).toBe(false)
    } finally {
      await host.close()
    }
    expect(configFiles(root)).toEqual(before)
    expect(readFileSync(join(root, 'profiles', 'broken', 'config.yaml'), 'utf8')).toBe(BROKEN)
  })

  it('caduceus serve warns on stderr and in its log, naming the profile, file and line', async () => {
    const root = makeHome()
    const before = configFiles(root)
    const serve = await startServe({ home: root })
    try {
      const want = /caduceus: warning: profile broken: config\.yaml is not valid YAML \(.*broken.config\.yaml, line 4\)/
      await expect.poll(() => serve.stderr(), { timeout: 10_000 }).toMatch(want)
      expect(serve.stderr()).toMatch(/profile listy: config\.yaml must be a mapping/)
      expect(serve.stderr()).toMatch(/profile locked: \S*locked.\.env cannot be read \(EISDIR.*turns are refused/)
      expect(serve.stderr()).not.toMatch(/profile default:/)
      const logged = () =>
        readdirSync(serve.logDir)
          .map((f) => readFileSync(join(serve.logDir, f), 'utf8'))
          .join('')
      await expect.poll(logged, { timeout: 10_000 }).toMatch(/profile broken: config\.yaml is not valid YAML/)
    } finally {
      await serve.close()
    }
    expect(configFiles(root)).toEqual(before)
  })
})
