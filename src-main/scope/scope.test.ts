import { mkdtempSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ctxBound, getHermesHome, isMultiplexActive, profileNameForHome, withHomeOverride } from './index'
import { multiplexed } from './test-support'

describe('profile scope', () => {
  it('derives the profile from the home path alone', () => {
    const root = mkdtempSync(join(tmpdir(), 'cad-scope-'))
    mkdirSync(join(root, 'profiles', 'alpha'), { recursive: true })
    expect(profileNameForHome(root, root)).toBe('default')
    expect(profileNameForHome(join(root, 'profiles', 'alpha'), root)).toBe('alpha')
    expect(profileNameForHome(join(root, 'elsewhere'), root)).toBeNull()
  })

  it('keeps overrides local to their async context', async () => {
    const seen: string[] = []
    await Promise.all(
      ['/a', '/b'].map((home) =>
        withHomeOverride(home, async () => {
          await new Promise((r) => setTimeout(r, 5))
          seen.push(getHermesHome())
        })
      )
    )
    expect(seen.sort()).toEqual(['/a', '/b'])
  })

  it('ctxBound captures the scope at wrap time, not run time', () => {
    const bound = withHomeOverride('/owner', () => ctxBound(() => getHermesHome()))
    expect(withHomeOverride('/other', () => bound())).toBe('/owner')
  })

  it('multiplex is the process-wide flag the host sets, seen from every async context', async () => {
    expect(isMultiplexActive()).toBe(false)
    await multiplexed(() =>
      withHomeOverride('/a', async () => {
        await new Promise((r) => setTimeout(r, 1))
        expect(isMultiplexActive()).toBe(true)
      })
    )
    expect(isMultiplexActive()).toBe(false)
  })
})
