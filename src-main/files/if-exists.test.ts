import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileIfExists, statIfExists } from './if-exists'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cad-if-exists-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('readFileIfExists / statIfExists', () => {
  it('read a file that is there', () => {
    writeFileSync(join(dir, 'a.json'), '{}')
    expect(readFileIfExists(join(dir, 'a.json'))).toBe('{}')
    expect(statIfExists(join(dir, 'a.json'))?.size).toBe(2)
    expect(typeof statIfExists(join(dir, 'a.json'), { bigint: true })?.ino).toBe('bigint')
  })

  it('give null for a path that is not there, or under a file (ENOTDIR)', () => {
    writeFileSync(join(dir, 'file'), 'x')
    for (const p of [join(dir, 'missing'), join(dir, 'file', 'below')]) {
      expect(readFileIfExists(p)).toBeNull()
      expect(statIfExists(p)).toBeNull()
    }
  })

  it('throw for a folder where the file should be: unreadable is not absent', () => {
    mkdirSync(join(dir, 'config.json'))
    expect(() => readFileIfExists(join(dir, 'config.json'))).toThrow(/EISDIR/)
  })
})
