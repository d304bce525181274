import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { removeSessionFiles } from './session-files'

let top = ''
afterEach(() => rmSync(top, { recursive: true, force: true }))

function home(names: string[]): string {
  top = mkdtempSync(join(tmpdir(), 'cad-sfiles-'))
  const h = join(top, 'home')
  mkdirSync(join(h, 'sessions'), { recursive: true })
  for (const n of names) writeFileSync(join(h, 'sessions', n), n)
  return h
}
const none = () => false

describe('removeSessionFiles', () => {
  it("removes a session's .json, .jsonl and request dumps, and nothing of another id", () => {
    const h = home(['s.json', 's.jsonl', 'request_dump_s_1.json', 'request_dump_s_.json', 'session_s.json'])
    writeFileSync(join(h, 'sessions', 'st.json'), '')
    writeFileSync(join(h, 'sessions', 'request_dump_s_1.json.bak'), '')
    expect(removeSessionFiles(h, ['s'], none).sort()).toEqual([
      'request_dump_s_.json',
      'request_dump_s_1.json',
      's.json',
      's.jsonl'
    ])
    expect(readdirSync(join(h, 'sessions')).sort()).toEqual(['request_dump_s_1.json.bak', 'session_s.json', 'st.json'])
  })

  it('never reaches past the sessions folder: an id with a separator or .. matches no file', () => {
    const h = home([])
    writeFileSync(join(h, 'secret.json'), 'keep')
    mkdirSync(join(h, 'sessions', 'a'))
    writeFileSync(join(h, 'sessions', 'a', 'b.json'), 'keep')
    expect(removeSessionFiles(h, ['../secret', 'a/b', '..', ''], none)).toEqual([])
    expect(existsSync(join(h, 'secret.json')) && existsSync(join(h, 'sessions', 'a', 'b.json'))).toBe(true)
  })

  it('reads glob characters in an id as characters', () => {
    const h = home(['[ab].json', 'a.json', 'request_dump_*_1.json', 'request_dump_x_1.json'])
    expect(removeSessionFiles(h, ['[ab]', '*'], none).sort()).toEqual(['[ab].json', 'request_dump_*_1.json'])
  })

  it("keeps the dumps of a longer id that still exists (deleting a keeps a_b's)", () => {
    const h = home(['request_dump_a_20260101_1.json', 'request_dump_a_b_20260101_1.json'])
    expect(removeSessionFiles(h, ['a'], (id) => id === 'a_b')).toEqual(['request_dump_a_20260101_1.json'])
    expect(removeSessionFiles(h, ['a'], none)).toEqual(['request_dump_a_b_20260101_1.json'])
  })

  it("takes a's own timed dumps even when a kept id looks like a's id plus the dump's time, and a_b's its own", () => {
    const mine = 'request_dump_job_20260101_120000_000001.json'
    const theirs = 'request_dump_job_20260101_120000_20260102_090000_000002.json'
    const h = home([mine, theirs])
    const kept = (id: string) => id === 'job_20260101_120000'
    expect(removeSessionFiles(h, ['job'], kept)).toEqual([mine])
    expect(removeSessionFiles(h, ['job_20260101_120000'], (id) => id === 'job')).toEqual([theirs])
    // with a_b gone too, its dumps go with a's, as upstream's glob takes them
    for (const n of ['request_dump_a_20260101_120000_000001.json', 'request_dump_a_b_20260101_120000_000001.json'])
      writeFileSync(join(h, 'sessions', n), n)
    expect(removeSessionFiles(h, ['a'], (id) => id === 'a_b')).toEqual(['request_dump_a_20260101_120000_000001.json'])
    expect(removeSessionFiles(h, ['a'], none)).toEqual(['request_dump_a_b_20260101_120000_000001.json'])
  })

  it('leaves a sessions folder that is a symlink out of the home alone, and removes a link, not its target', () => {
    const h = home([])
    const out = join(top, 'elsewhere')
    mkdirSync(out)
    writeFileSync(join(out, 's.json'), 'not the home')
    symlinkSync(join(out, 's.json'), join(h, 'sessions', 's.jsonl'))
    expect(removeSessionFiles(h, ['s'], none)).toEqual(['s.jsonl'])
    expect(existsSync(join(out, 's.json'))).toBe(true)
    rmSync(join(h, 'sessions'), { recursive: true })
    symlinkSync(out, join(h, 'sessions'))
    expect(removeSessionFiles(h, ['s'], none)).toEqual([])
    expect(existsSync(join(out, 's.json'))).toBe(true)
  })

  it('does nothing for a home without a sessions folder', () => {
    top = mkdtempSync(join(tmpdir(), 'cad-sfiles-'))
    expect(removeSessionFiles(top, ['s'], none)).toEqual([])
  })
})
