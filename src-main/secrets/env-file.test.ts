import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { updateEnvFile } from './env-file'
import { EnvFileVault, secretsFor } from './vault'

/** What a profile's secret scope reads from `.env` holding `text` (the production read path). */
const parseEnv = (text: string) => {
  const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
  writeFileSync(join(home, '.env'), text)
  return secretsFor(home, new EnvFileVault())
}

describe('.env parsing', () => {
  it('handles BOM, export prefix, quotes and inline comments', () => {
    const text =
      '\ufeff# comment\nexport OPENAI_API_KEY=sk-abc123 # trailing\nA="two words" # c\nB=\'single # not comment\'\nC=x#y\nD="esc\\"aped\\n"\n\nnot a line\n=novalue\nE=\n'
    expect(parseEnv(text)).toEqual({
      OPENAI_API_KEY: 'sk-abc123',
      A: 'two words',
      B: 'single # not comment',
      C: 'x#y',
      D: 'esc"aped\n',
      E: ''
    })
  })

  it('never touches process.env', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    writeFileSync(join(home, '.env'), 'CADUCEUS_TEST_ONLY_VAR=1\n')
    expect(secretsFor(home, new EnvFileVault())).toEqual({ CADUCEUS_TEST_ONLY_VAR: '1' })
    expect(process.env.CADUCEUS_TEST_ONLY_VAR).toBeUndefined()
  })

  it('a missing file is an empty scope', () => {
    expect(secretsFor(join(tmpdir(), 'cad-does-not-exist-xyz'), new EnvFileVault())).toEqual({})
  })
})

describe('updateEnvFile', () => {
  it('updates one key in place, keeps other lines and the group bits, never world-readable', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    const p = join(home, '.env')
    writeFileSync(p, '# keys\nexport OPENAI_API_KEY=old\nOTHER=keep # note\n', { mode: 0o644 })
    updateEnvFile(p, 'OPENAI_API_KEY', 'sk-new value')
    expect(readFileSync(p, 'utf8')).toBe('# keys\nOPENAI_API_KEY=sk-new value\nOTHER=keep # note\n')
    expect(statSync(p).mode & 0o777).toBe(0o640)
    expect(parseEnv(readFileSync(p, 'utf8')).OPENAI_API_KEY).toBe('sk-new value')
  })

  it('appends a new key and removes with null', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    const p = join(home, '.env')
    updateEnvFile(p, 'ANTHROPIC_API_KEY', 'sk-ant-1')
    expect(parseEnv(readFileSync(p, 'utf8'))).toEqual({ ANTHROPIC_API_KEY: 'sk-ant-1' })
    updateEnvFile(p, 'ANTHROPIC_API_KEY', null)
    expect(parseEnv(readFileSync(p, 'utf8'))).toEqual({})
  })

  it('round-trips awkward values', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    const p = join(home, '.env')
    const value = 'a "quoted" $value # with\\backslash'
    updateEnvFile(p, 'K', value)
    expect(parseEnv(readFileSync(p, 'utf8')).K).toBe(value)
  })

  // scripts/golden/env_values.py: the line this writer writes for each value, and what upstream's two readers
  // (python-dotenv, which fills the agent's environment, and upstream's own parser) read back from it.
  it("writes every value so upstream's readers read it back as written", () => {
    const gold = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/env-values/cases.json'), 'utf8')
    ) as { cases: Array<{ value: string; line: string; dotenv: string; upstream: string }> }
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    const p = join(home, '.env')
    gold.cases.forEach((c, i) => updateEnvFile(p, `K${i}`, c.value))
    const lines = readFileSync(p, 'utf8').split('\n')
    gold.cases.forEach((c, i) => {
      expect(lines.find((l) => l.startsWith(`K${i}=`))).toBe(c.line)
      expect(c.upstream).toBe(c.value)
      // python-dotenv expands ${VAR} whatever the quoting: no line can carry one past it (nor can upstream's writer),
      // and this reader reads what the agent's python-dotenv reads.
      if (!c.value.includes('${')) expect(c.dotenv).toBe(c.value)
      const asTheAgentReads = c.value.replaceAll('${HOME}', process.env.HOME ?? '')
      expect(parseEnv(readFileSync(p, 'utf8'))[`K${i}`]).toBe(asTheAgentReads)
    })
  })

  // scripts/golden/env_values.py `reads`: hand-written .env texts and the variables upstream's own load path
  // (load_hermes_dotenv: line sanitizer, then python-dotenv with interpolation) set from them.
  const reads = (
    JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/env-values/cases.json'), 'utf8')
    ) as { reads: Array<{ name: string; text: string; env: Record<string, string> }> }
  ).reads
  it.each(reads.map((r) => [r.name, r] as const))('reads a hand-written .env as upstream loads it: %s', (_n, r) => {
    const saved = process.env.GOLDEN_SHELL_VAR
    process.env.GOLDEN_SHELL_VAR = 'from-shell'
    try {
      expect(parseEnv(r.text)).toEqual(r.env)
    } finally {
      if (saved === undefined) delete process.env.GOLDEN_SHELL_VAR
      else process.env.GOLDEN_SHELL_VAR = saved
    }
  })

  it('a symlinked .env stays a symlink; an unreadable one is never rewritten as just the new key', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-env-'))
    const real = join(home, 'secrets.env')
    writeFileSync(real, 'A=1\n', { mode: 0o600 })
    symlinkSync(real, join(home, '.env'))
    updateEnvFile(join(home, '.env'), 'B', '2')
    expect(lstatSync(join(home, '.env')).isSymbolicLink()).toBe(true)
    expect(readFileSync(real, 'utf8')).toBe('A=1\nB=2\n')
    const dir = join(home, 'a-dir.env')
    mkdirSync(dir)
    expect(() => updateEnvFile(dir, 'C', '3')).toThrow()
    expect(readdirSync(home).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('rejects invalid names', () => {
    expect(() => updateEnvFile(join(tmpdir(), 'x.env'), 'BAD NAME', 'v')).toThrow(/invalid/)
  })
})
