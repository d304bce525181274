// `plugins.hermes-memory-store` read from a real config.yaml, against what upstream's own plugin did with the same
// text (scripts/golden/holographic_config.py): the file it opened for each db_path, and the settings it refused at
// initialize. Both programs must open the same file, so a db_path upstream takes relative to the folder it was
// started from (`${HOME}/…` is not expanded there) is refused here rather than resolved somewhere else; and every
// setting upstream refuses shows in the picker's availability, before a turn meets it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config'
import { providerAvailability } from '../index'
import { holographicDbPath } from './config'
import { HolographicProvider } from './provider'

interface Case {
  name: string
  config: string
  loaded: boolean
  initialized?: boolean
  db_path?: string
  opened?: string
  absolute?: boolean
  error?: string
}
const FIXTURE = resolve(import.meta.dirname, '../../../../test/fixtures/upstream/holographic-config/upstream.json')
const { cases } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Case[] }

const base = mkdtempSync(join(tmpdir(), 'cad-holo-config-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe("holographic's config.yaml section, as upstream's plugin reads it", () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (name, c) => {
    const dir = join(base, name.replace(/[^A-Za-z0-9]+/g, '_'))
    const home = join(dir, 'home')
    const user = join(dir, 'user')
    mkdirSync(home, { recursive: true })
    mkdirSync(user)
    process.env.HOME = user // `~` and `${HOME}` as upstream had them (the worker's environment is put back per file)
    // `~NAME/…`: this process's login and its home from the password database (not $HOME), as upstream's run had its own.
    const login = userInfo()
    const sub = `.cad-holo-config-${process.pid}`
    const logins = (s: string) =>
      s.replaceAll('<login-home>', login.homedir.replace(/\/+$/, '')).replaceAll('<login>', login.username)
    writeFileSync(join(home, 'config.yaml'), logins(c.config).replaceAll('<base>', dir).replaceAll('<dir>', sub))
    const config = loadConfig(home).raw
    const tags = (s: string) =>
      logins(s).replaceAll('<home>', home).replaceAll('<user>', user).replaceAll('<base>', dir).replaceAll('<dir>', sub)

    const availability = providerAvailability('holographic', { home, profile: 'default', config, secrets: {} })
    if (c.config.includes('~<login>/')) {
      // The same file as upstream's, named without opening it: the test makes nothing in the login's real home.
      expect(holographicDbPath(config, home)).toBe(tags(c.opened!))
      expect(availability).toEqual({ available: true, detail: null })
      return
    }
    const p = new HolographicProvider({ config, home })
    let opened: string | null = null
    let refusal = ''
    try {
      p.initialize('s1', { hermesHome: home, platform: 'cli' })
      opened = p.backupPaths()[0] ?? null
    } catch (err) {
      refusal = (err as Error).message
    } finally {
      p.shutdown()
    }

    if (c.initialized && c.absolute) {
      // The same file upstream opened, and the picker promises it.
      expect(opened).toBe(tags(c.opened!))
      expect(existsSync(opened!)).toBe(true)
      expect(availability).toEqual({ available: true, detail: null })
      return
    }
    // Upstream refused it (initialize raised, or its loader gave up), or opened a path relative to the folder it was
    // started in: refused here too, in the picker first.
    expect(opened).toBeNull()
    expect(availability?.available).toBe(false)
    expect(availability?.detail).toBe(`Memory provider 'holographic' will not start: ${refusal}`)
    if (c.initialized) {
      expect(refusal).toContain(`plugins.hermes-memory-store.db_path: '${c.db_path}' is a relative path`)
    } else if (c.error) {
      // upstream's own words after the exception's class: `ValueError: could not convert string to float: 'high'`
      expect(refusal).toContain(c.error.replace(/^\w+: /, ''))
    } else {
      expect(c.loaded).toBe(false) // its constructor raised already (min_trust_threshold)
      expect(refusal).toContain("could not convert string to float: 'low'")
    }
    // Nothing made under the user's home or the home for a path that was not expanded (no `${HOME}` folder).
    expect(readdirSync(user)).toEqual([])
    expect(readdirSync(home)).toEqual(['config.yaml'])
  })
})
