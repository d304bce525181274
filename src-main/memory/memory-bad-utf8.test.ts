// A MEMORY.md or USER.md that is not valid UTF-8, in the system prompt: upstream's agent (a real AIAgent built over
// the same bytes, scripts/golden/memory_bad_utf8.py) leaves BOTH files out of its prompt, and never shows the file
// decoded with U+FFFD. One replaced by a folder is read as empty, at start and at a refresh, and the other file is
// kept. The built-in provider here builds the prompt block the agent gets.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BuiltinMemoryProvider } from './builtin'

interface Case {
  name: string
  files_hex: Record<string, string>
  memory_block: boolean
  memory_entry: boolean
  user_block: boolean
  user_entry: boolean
  replacement_char: boolean
}
const FIXTURE = resolve(import.meta.dirname, '../../test/fixtures/upstream/memory-bad-utf8/upstream.json')
type Seen = Pick<Case, 'memory_block' | 'memory_entry' | 'user_block' | 'user_entry' | 'replacement_char'>
interface FolderCase {
  name: string
  folder: 'MEMORY.md' | 'USER.md'
  at_start: Seen
  after_refresh: Seen
}
const { cases, folder_cases } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
  cases: Case[]
  folder_cases: FolderCase[]
}

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
function homeWith(files: Record<string, string>): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-mem-utf8-'))
  made.push(home)
  mkdirSync(join(home, 'memories'))
  for (const [name, hex] of Object.entries(files)) writeFileSync(join(home, 'memories', name), Buffer.from(hex, 'hex'))
  return home
}

function promptOf(home: string): string {
  const p = new BuiltinMemoryProvider()
  p.initialize('s1', { hermesHome: home, platform: 'cli' })
  return p.systemPromptBlock()
}

const seen = (prompt: string): Seen => ({
  memory_block: prompt.includes('MEMORY (your personal notes)'),
  memory_entry: prompt.includes('Project uses pnpm'),
  user_block: prompt.includes('USER PROFILE (who the user is)'),
  user_entry: prompt.includes('Name: Ada'),
  replacement_char: prompt.includes('\uFFFD')
})

describe('a memory file that is not UTF-8, in the system prompt', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: the prompt carries what upstream’s carries', (_name, c) => {
    const prompt = promptOf(homeWith(c.files_hex))
    expect(seen(prompt)).toEqual({
      memory_block: c.memory_block,
      memory_entry: c.memory_entry,
      user_block: c.user_block,
      user_entry: c.user_entry,
      replacement_char: c.replacement_char
    })
  })

  it('a file that stops being UTF-8 mid-session leaves the snapshot taken before (a refresh changes nothing)', () => {
    const valid = cases.find((c) => c.name === 'both_valid')!
    const home = homeWith(valid.files_hex)
    const p = new BuiltinMemoryProvider()
    p.initialize('s1', { hermesHome: home, platform: 'cli' })
    const before = p.systemPromptBlock()
    expect(before).toContain('Name: Ada')
    writeFileSync(join(home, 'memories', 'USER.md'), Buffer.from('Name: Ada\n\u00a7\nLikes caf\u00e9', 'latin1'))
    p.onSessionSwitch()
    expect(p.systemPromptBlock()).toBe(before)
  })
})

describe('a memory file replaced by a folder, in the system prompt', () => {
  const valid = cases.find((c) => c.name === 'both_valid')!
  it.each(folder_cases.map((c) => [c.name, c] as const))(
    '%s: read as empty at start and at a refresh, as upstream reads it; the other file stays',
    (_name, c) => {
      const home = homeWith(valid.files_hex)
      const path = join(home, 'memories', c.folder)
      const p = new BuiltinMemoryProvider()
      p.initialize('s1', { hermesHome: home, platform: 'cli' })
      // Replaced while the session runs: the previous snapshot must not linger once the prompt is rebuilt.
      rmSync(path)
      mkdirSync(path)
      writeFileSync(join(path, 'notes.txt'), 'inside the folder')
      p.onSessionSwitch()
      expect(seen(p.systemPromptBlock())).toEqual(c.after_refresh)
      expect(seen(promptOf(home))).toEqual(c.at_start)
      expect(readFileSync(join(path, 'notes.txt'), 'utf8')).toBe('inside the folder')
    }
  )
})
