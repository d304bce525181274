// The one temp + rename writer: the file's owner decides its mode, a symlink is kept only where asked, a failed write
// leaves the old file and no temp file behind.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupTempDirs, tempDir } from '../store/test-fixtures/tmp'
import { replaceFile } from './index'

const dir = () => tempDir('cad-replace-')
afterAll(() => cleanupTempDirs())
const mode = (p: string) => statSync(p).mode & 0o777

describe('replaceFile', () => {
  it('gives a new file modeOf(null) and an existing one modeOf(its mode), whatever the umask', () => {
    const d = dir()
    const seen: Array<number | null> = []
    const modeOf = (m: number | null) => {
      seen.push(m === null ? null : m & 0o777)
      return m === null ? 0o640 : m & 0o777
    }
    replaceFile(join(d, 'a'), 'one', { modeOf })
    expect([readFileSync(join(d, 'a'), 'utf8'), mode(join(d, 'a'))]).toEqual(['one', 0o640])
    chmodSync(join(d, 'a'), 0o604)
    replaceFile(join(d, 'a'), 'two', { modeOf })
    expect([readFileSync(join(d, 'a'), 'utf8'), mode(join(d, 'a'))]).toEqual(['two', 0o604])
    expect(seen).toEqual([null, 0o604])
    expect(readdirSync(d)).toEqual(['a'])
  })

  it('keeps a symlink and replaces its target with followLinks; without it the link becomes the file', () => {
    const d = dir()
    mkdirSync(join(d, 'real'))
    writeFileSync(join(d, 'real', 'f'), 'old', { mode: 0o600 })
    symlinkSync(join(d, 'real', 'f'), join(d, 'kept'))
    replaceFile(join(d, 'kept'), 'new', { modeOf: () => 0o600, followLinks: true })
    expect(lstatSync(join(d, 'kept')).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(d, 'real', 'f'), 'utf8')).toBe('new')
    expect(readdirSync(join(d, 'real'))).toEqual(['f'])

    symlinkSync(join(d, 'real', 'f'), join(d, 'plain'))
    replaceFile(join(d, 'plain'), 'own', { modeOf: () => 0o600 })
    expect(lstatSync(join(d, 'plain')).isSymbolicLink()).toBe(false)
    expect([readFileSync(join(d, 'plain'), 'utf8'), readFileSync(join(d, 'real', 'f'), 'utf8')]).toEqual(['own', 'new'])
  })

  it('with followLinks, a link whose target is not there yet gets that target created and stays a link', () => {
    const d = dir()
    mkdirSync(join(d, 'dots'))
    symlinkSync(join('dots', 'MEMORY.md'), join(d, 'dots-link')) // relative to the link's folder
    mkdirSync(join(d, 'home'))
    symlinkSync(join(d, 'dots-link'), join(d, 'home', 'MEMORY.md'))
    replaceFile(join(d, 'home', 'MEMORY.md'), 'first', { modeOf: () => 0o600, followLinks: true })
    expect(lstatSync(join(d, 'home', 'MEMORY.md')).isSymbolicLink()).toBe(true)
    expect([readFileSync(join(d, 'dots', 'MEMORY.md'), 'utf8'), mode(join(d, 'dots', 'MEMORY.md'))]).toEqual([
      'first',
      0o600
    ])
  })

  it('refuses a link it cannot follow (a loop) instead of writing over it as a new file', () => {
    const d = dir()
    symlinkSync(join(d, 'loop'), join(d, 'loop'))
    expect(() => replaceFile(join(d, 'loop'), 'secret', { modeOf: () => 0o600, followLinks: true })).toThrow(/ELOOP/)
    expect(lstatSync(join(d, 'loop')).isSymbolicLink()).toBe(true)
    expect(readdirSync(d)).toEqual(['loop'])
  })

  it('leaves what was there and no temp file when the rename fails', () => {
    const d = dir()
    mkdirSync(join(d, 'taken'))
    writeFileSync(join(d, 'taken', 'x'), 'keep')
    expect(() => replaceFile(join(d, 'taken'), 'secret', { modeOf: () => 0o600 })).toThrow()
    expect(readdirSync(d)).toEqual(['taken'])
    expect(readFileSync(join(d, 'taken', 'x'), 'utf8')).toBe('keep')
  })
})
