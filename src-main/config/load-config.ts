/**
 * `<home>/config.yaml`, read with the yaml package. A malformed or unreadable file yields an error object
 * (and an empty config) — never an exception into the host. Reads are memoized on the file's stat so the
 * per-turn signature check costs one `stat`, not a YAML parse.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseDocument, type ScalarTag, type Tags } from 'yaml'
import { errorMessage } from '@shared/contract/errors'

export type RawConfig = Record<string, unknown>

export interface ConfigError {
  code: 'malformed_config' | 'unreadable_config'
  path: string
  message: string
  line?: number
}

export interface LoadedConfig {
  path: string
  /** Parsed mapping; `{}` when the file is missing, malformed or not a mapping. */
  raw: RawConfig
  exists: boolean
  error: ConfigError | null
}

export function configPath(home: string): string {
  return join(home, 'config.yaml')
}

const memo = new Map<string, { stamp: string; loaded: LoadedConfig }>()

function stampOf(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true })
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    return null
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export function loadConfig(home: string): LoadedConfig {
  const path = configPath(home)
  const stamp = stampOf(path)
  if (stamp === null) return { path, raw: {}, exists: false, error: null }
  const hit = memo.get(path)
  if (hit && hit.stamp === stamp) return hit.loaded
  const loaded = readConfig(path)
  memo.set(path, { stamp, loaded })
  return loaded
}

/**
 * Upstream reads config.yaml with PyYAML (YAML 1.1): `yes`/`no`/`on`/`off` in any of their three spellings are
 * booleans there, strings in YAML 1.2. A hand-edited `auto_extract: no` must mean off in both programs. Only the
 * boolean words differ in practice; the rest of YAML 1.2's core schema reads the values upstream writes alike.
 */
const PY_BOOL_WORD = /^(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE)$/
const PY_TRUE = /^(?:yes|on|true)$/i
const PY_BOOL: ScalarTag = {
  tag: 'tag:yaml.org,2002:bool',
  default: true,
  test: PY_BOOL_WORD,
  resolve: (word: string) => PY_TRUE.test(word),
  identify: (value) => typeof value === 'boolean',
  // An untouched `yes` is written back as `yes`, not rewritten to `true`.
  stringify: ({ value, source }) =>
    typeof source === 'string' && PY_BOOL_WORD.test(source) && PY_TRUE.test(source) === value
      ? source
      : value
        ? 'true'
        : 'false'
}
/** Read and write config.yaml with these: a string that PyYAML would read as a boolean is then written quoted. */
export const pyYamlTags = (tags: Tags): Tags => [
  ...tags.filter((t) => typeof t === 'string' || t.tag !== PY_BOOL.tag),
  PY_BOOL
]

function readConfig(path: string): LoadedConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    return {
      path,
      raw: {},
      exists: true,
      error: { code: 'unreadable_config', path, message: `cannot read ${path}: ${errorMessage(err)}` }
    }
  }
  const doc = parseDocument(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { customTags: pyYamlTags })
  if (doc.errors.length) {
    const first = doc.errors[0]
    const line = first.linePos?.[0]?.line
    const detail = first.message.split('\n')[0]
    return {
      path,
      raw: {},
      exists: true,
      error: {
        code: 'malformed_config',
        path,
        line,
        message: `config.yaml is not valid YAML (${path}${line ? `, line ${line}` : ''}): ${detail}`
      }
    }
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: 100 })
  } catch (err) {
    return {
      path,
      raw: {},
      exists: true,
      error: {
        code: 'malformed_config',
        path,
        message: `config.yaml could not be read (${path}): ${errorMessage(err)}`
      }
    }
  }
  if (value === null || value === undefined) return { path, raw: {}, exists: true, error: null }
  if (!isPlainObject(value)) {
    return {
      path,
      raw: {},
      exists: true,
      error: { code: 'malformed_config', path, message: `config.yaml must be a mapping at the top level (${path})` }
    }
  }
  return { path, raw: value, exists: true, error: null }
}
