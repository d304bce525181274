// scripts/golden/config_load.py: upstream's own load_config (and fast_safe_load) on hand-edited config.yaml files.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EnvFileVault } from '../secrets'
import { loadConfig } from './load-config'
import { writeMemoryProvider } from './memory-provider-setting'
import { parsePyYaml } from './py-yaml'
import { readSettings, writeSettings } from './settings'
import { modelFieldPath } from './upstream-rewrites'

interface GoldenCase {
  name: string
  yaml: string
  env: string | null
  /** PyYAML's reading of the file alone (fast_safe_load). */
  file: Record<string, unknown>
  /** upstream's load_config. */
  loaded: Record<string, unknown>
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/config-load/cases.json'), 'utf8')
) as { defaults: Record<string, unknown>; cases: GoldenCase[] }

const vault = new EnvFileVault()
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** upstream's _deep_merge: nested mappings merge, a null over a mapping default is ignored. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (isMap(out[k]) && isMap(v)) out[k] = deepMerge(out[k], v)
    else if (isMap(out[k]) && v === null) continue
    else out[k] = v
  }
  return out
}

/** The golden's JSON spelling of what JSON cannot hold (Python's inf). */
const jsonable = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : x)))

const home = (c: Pick<GoldenCase, 'yaml' | 'env'>) => {
  const h = mkdtempSync(join(tmpdir(), 'cad-cfg-golden-'))
  writeFileSync(join(h, 'config.yaml'), c.yaml)
  if (c.env !== null) writeFileSync(join(h, '.env'), c.env)
  return h
}

/** PyYAML's reading of a file's text, without upstream's load-time rewrites. */
const pyRead = (text: string) => jsonable(parsePyYaml(text).toJS({ maxAliasCount: 100 })) as Record<string, unknown>

const without = (value: Record<string, unknown>, paths: string[][]): Record<string, unknown> => {
  const copy = structuredClone(value)
  for (const path of paths) {
    let node: unknown = copy
    for (const key of path.slice(0, -1)) node = isMap(node) ? node[key] : undefined
    if (isMap(node)) delete node[path[path.length - 1]]
  }
  return copy
}

describe('config.yaml as upstream reads it (recorded from upstream)', () => {
  it('has the cases the golden script wrote', () => {
    expect(golden.cases.map((c) => c.name)).toEqual([
      'duplicate-keys',
      'env-refs',
      'legacy-name',
      'legacy-root',
      'legacy-precedence',
      'merge-keys',
      'yaml11-scalars',
      'hand-edited'
    ])
  })

  for (const c of golden.cases) {
    it(`${c.name}: PyYAML's reading, and load_config's once upstream's defaults are merged in`, () => {
      expect(pyRead(c.yaml)).toEqual(c.file)
      const loaded = loadConfig(home(c))
      expect(loaded.error).toBeNull()
      expect(jsonable(deepMerge(golden.defaults, loaded.raw))).toEqual(c.loaded)
    })
  }

  it('a ${VAR} follows a changed .env without the config file changing', () => {
    const c = golden.cases.find((x) => x.name === 'env-refs')!
    const h = home(c)
    expect(readSettings(h, { vault }).model).toBe('openai/gpt-5')
    writeFileSync(join(h, '.env'), 'CAD_GOLDEN_MODEL=other/model\n')
    expect(readSettings(h, { vault }).model).toBe('other/model')
  })
})

describe('a Settings save keeps what it did not edit (PyYAML reads every other key as before)', () => {
  const patch = { model: 'new/model-1_000', provider: 'openrouter', busyInputMode: 'queue' as const }
  for (const c of golden.cases) {
    it(`${c.name}`, () => {
      const h = home(c)
      const paths = [
        modelFieldPath(c.file, 'default'),
        modelFieldPath(c.file, 'provider'),
        ['display', 'busy_input_mode'],
        ['display', 'busy_text_mode']
      ]
      const s = writeSettings(h, patch, { vault })
      expect(s).toMatchObject({ model: 'new/model-1_000', provider: 'openrouter', busyInputMode: 'queue' })
      const after = readFileSync(join(h, 'config.yaml'), 'utf8')
      // Every key the save did not edit reads as PyYAML read it in the original file.
      const reread = pyRead(after)
      const original = c.file
      const editedSections = paths.filter((p) => p.length === 1 || !isMap(original[p[0]])).map((p) => p.slice(0, 1))
      expect(without(reread, [...paths, ...editedSections])).toEqual(without(original, [...paths, ...editedSections]))
      // Byte for byte: the original's lines all survive in order, apart from the edited values' own lines.
      const edited = new Set(
        paths.map((p) => p[p.length - 1]).concat(paths.filter((p) => p.length === 1).map((p) => p[0]))
      )
      const untouched = c.yaml.split('\n').filter((line) => !edited.has(/^\s*([^:#\s]+)\s*:/.exec(line)?.[1] ?? ''))
      const out = after.split('\n')
      let at = 0
      for (const line of untouched) {
        const found = out.indexOf(line, at)
        expect([line, found >= 0]).toEqual([line, true])
        at = found + 1
      }
      // The new model is a string for PyYAML (quoted: 1_000 alone would be a number there), and ${VAR}s stay.
      expect(JSON.stringify(reread)).toContain('"new/model-1_000"')
      for (const ref of c.yaml.match(/\$\{[^}]+\}/g) ?? []) if (!/MODEL/.test(ref)) expect(after).toContain(ref)
    })
  }

  it('repeated keys: the last copy (the one PyYAML reads) is edited, the first is left as written', () => {
    const c = golden.cases.find((x) => x.name === 'duplicate-keys')!
    const h = home(c)
    writeSettings(h, { model: 'e/f' }, { vault })
    expect(readFileSync(join(h, 'config.yaml'), 'utf8')).toBe(
      'model:\n  default: a/b\n  provider: openrouter\nmodel:\n  default: e/f\ndisplay:\n  skin: one\n  skin: two\n'
    )
    expect(readSettings(h, { vault }).model).toBe('e/f')
  })

  it('a legacy model key is edited where it is, and Settings shows it', () => {
    const legacy = golden.cases.find((x) => x.name === 'legacy-name')!
    const h = home(legacy)
    expect(readSettings(h, { vault })).toMatchObject({ model: 'my-model', baseUrl: 'http://localhost:8080/v1' })
    writeSettings(h, { model: 'other', baseUrl: 'http://localhost:8080/v2' }, { vault })
    expect(readFileSync(join(h, 'config.yaml'), 'utf8')).toBe(
      'model:\n  name: other\n  provider: custom\n  api_base: http://localhost:8080/v2\n'
    )
    const root = home(golden.cases.find((x) => x.name === 'legacy-root')!)
    writeSettings(root, { provider: 'anthropic' }, { vault })
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).toContain('\nprovider: anthropic\n')
    expect(readSettings(root, { vault })).toMatchObject({ model: 'gpt-4o', provider: 'anthropic' })
  })

  it('untouched YAML 1.1 numbers keep their spelling; new look-alike strings are quoted', () => {
    const h = home({ yaml: 'agent:\n  max_turns: 060\n  perm: 0755\n  r: 1e3\n  f: 1.0\nmodel: x\n', env: null })
    writeSettings(h, { model: '2024-01-02' }, { vault })
    expect(readFileSync(join(h, 'config.yaml'), 'utf8')).toBe(
      'agent:\n  max_turns: 060\n  perm: 0755\n  r: 1e3\n  f: 1.0\nmodel: "2024-01-02"\n'
    )
    for (const word of ['1_000', '1:30', '0755', 'no'])
      expect(writeSettings(h, { model: word }, { vault }).model).toBe(word)
  })
})

describe('config.yaml keeps its mode on every rewrite', () => {
  it('the memory picker and Settings keep 0644/0640; a new file is 0600 as upstream makes it', () => {
    const h = home({ yaml: 'memory:\n  provider: holographic\n', env: null })
    const path = join(h, 'config.yaml')
    chmodSync(path, 0o644)
    writeMemoryProvider(h, 'honcho')
    expect(statSync(path).mode & 0o777).toBe(0o644)
    expect(readFileSync(path, 'utf8')).toBe('memory:\n  provider: honcho\n')
    chmodSync(path, 0o640)
    writeSettings(h, { busyInputMode: 'steer' }, { vault })
    writeMemoryProvider(h, null)
    expect(statSync(path).mode & 0o777).toBe(0o640)
    // built-in only is `provider: ''` as upstream's `hermes memory off` writes it (test/cli-more-verbs.test.ts)
    expect(readFileSync(path, 'utf8')).toBe('memory:\n  provider: ""\ndisplay:\n  busy_input_mode: steer\n')
    const fresh = mkdtempSync(join(tmpdir(), 'cad-cfg-new-'))
    writeMemoryProvider(fresh, 'honcho')
    expect(statSync(join(fresh, 'config.yaml')).mode & 0o777).toBe(0o600)
  })
})
