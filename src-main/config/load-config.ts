/**
 * `<home>/config.yaml`, read with the yaml package. A malformed or unreadable file yields an error object
 * (and an empty config) — never an exception into the host. Reads are memoized on the file's stat so the
 * per-turn signature check costs one `stat`, not a YAML parse.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ConfigProblem } from '@shared/contract'
import { errorMessage } from '@shared/contract/errors'
import { carryFloatMarks } from '@shared/contract/py-text'
import { statIfExists } from '../files'
import { envPath, profileEnv, readEnvFile } from '../secrets'
import { parsePyYaml, unwrapWholeFloats } from './py-yaml'
import { envRefNames, expandEnvRefs, normaliseLegacyKeys } from './upstream-rewrites'

export type RawConfig = Record<string, unknown>

export interface ConfigError {
  /** `unreadable_env`: the profile's .env is there but cannot be read (resolveRuntime; `path` names it). */
  code: 'malformed_config' | 'unreadable_config' | 'unreadable_env'
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
  /**
   * The profile's `.env` values its `${VAR}`s took: one may be a key (`api_key: ${OPENAI_API_KEY}`), which the host
   * that resolves the runtime masks like the rest of `.env` (`resolveRuntime` gives them to its vault's mask).
   */
  envValues?: readonly string[]
}

export function configPath(home: string): string {
  return join(home, 'config.yaml')
}

/**
 * One file's read: the parsed and normalised mapping (stat-stamped), the `${VAR}` names it mentions, and its last
 * expansion with the values those names had then (so a changed `.env` is seen without re-parsing).
 */
interface MemoEntry {
  stamp: string
  parsed: LoadedConfig
  refs: string[]
  expanded?: { env: Array<string | undefined>; loaded: LoadedConfig }
}
const memo = new Map<string, MemoEntry>()

/** The file's stamp; null when it is not there. Any other failure (a symlink loop, no permission) throws. */
function stampOf(path: string): string | null {
  const s = statIfExists(path, { bigint: true })
  return s && `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * `<home>/config.yaml` as upstream's load_config gives it (without its defaults, which the typed readers supply):
 * PyYAML's reading (py-yaml.ts), the legacy keys moved into `model.*` and `${VAR}` expanded from the environment
 * upstream has (the process environment with the profile's `.env` loaded over it, as load_hermes_dotenv does, and
 * HERMES_HOME the profile's own folder).
 */
export function loadConfig(home: string): LoadedConfig {
  const path = configPath(home)
  let stamp: string | null
  try {
    stamp = stampOf(path)
  } catch (err) {
    // Not "absent": defaults would silently stand in for the user's settings (model, provider, endpoint).
    memo.delete(path)
    return { path, raw: {}, exists: true, error: unreadable(path, err) }
  }
  if (stamp === null) {
    memo.delete(path)
    return { path, raw: {}, exists: false, error: null }
  }
  let entry = memo.get(path)
  if (!entry || entry.stamp !== stamp) {
    const parsed = readConfig(path)
    entry = { stamp, parsed, refs: [...envRefNames(parsed.raw)] }
    memo.set(path, entry)
  }
  if (entry.refs.length === 0) return entry.parsed
  const dotenv = readEnvFile(envPath(home))
  // `${HERMES_HOME}` in a profile's file is the folder the file is in, whatever this process's own HERMES_HOME says
  // (another profile, the root, or empty): a store path built from it must never land in another profile's home.
  const lookup = profileEnv(home, dotenv)
  const env = entry.refs.map(lookup)
  const cached = entry.expanded
  if (cached && cached.env.every((v, i) => v === env[i])) return cached.loaded
  const loaded: LoadedConfig = {
    ...entry.parsed,
    envValues: entry.refs.filter((name) => Object.hasOwn(dotenv, name)).map((name) => dotenv[name]!),
    raw: withTurnsAsWritten(
      keepLiteral(expandEnvRefs(entry.parsed.raw, lookup) as RawConfig, entry.parsed.raw),
      maxTurnsAsWritten(entry.parsed.raw)
    )
  }
  entry.expanded = { env, loaded }
  return loaded
}

/**
 * `plugins.hermes-memory-store` as the file has it: upstream's holographic plugin, the section's only reader, loads
 * config.yaml with its own `yaml.safe_load` and never expands `${VAR}` in it (only `$HERMES_HOME` in db_path, which
 * the provider does itself). Expanded here, `db_path: ${HOME}/facts.db` named another file than the one upstream opens.
 */
function keepLiteral(expanded: RawConfig, parsed: RawConfig): RawConfig {
  const plugins = parsed.plugins
  if (!isPlainObject(plugins) || !Object.hasOwn(plugins, 'hermes-memory-store')) return expanded
  const copied = carryFloatMarks(expanded.plugins as object, {
    ...(expanded.plugins as Record<string, unknown>),
    'hermes-memory-store': plugins['hermes-memory-store']
  })
  return carryFloatMarks(expanded, { ...expanded, plugins: copied })
}

/**
 * Why the profile's config.yaml cannot be used (file, line, reason), or null when it can (or there is none). A read
 * view shows this instead of the defaults `loadConfig` stands in with; nothing is written to the profile.
 */
export function configProblem(home: string): ConfigProblem | null {
  const e = loadConfig(home).error
  if (!e) return null
  return { path: e.path, ...(e.line ? { line: e.line } : {}), message: e.message }
}

const unreadable = (path: string, err: unknown): ConfigError => ({
  code: 'unreadable_config',
  path,
  message: `cannot read ${path}: ${errorMessage(err)}`
})

const malformed = (path: string, message: string, line?: number): ConfigError => ({
  code: 'malformed_config',
  path,
  ...(line !== undefined ? { line } : {}),
  message
})

/** A config.yaml that is there but cannot be used: read as empty (upstream's defaults), with why. */
const unusable = (path: string, error: ConfigError): LoadedConfig => ({ path, raw: {}, exists: true, error })

function readConfig(path: string): LoadedConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    return unusable(path, unreadable(path, err))
  }
  const doc = parsePyYaml(text, true)
  if (doc.errors.length) {
    const first = doc.errors[0]
    const line = first.linePos?.[0]?.line
    // the parser's first line, without the colon that introduces its excerpt of the file
    const detail = first.message.split('\n')[0].replace(/:\s*$/, '')
    return unusable(
      path,
      malformed(path, `config.yaml is not valid YAML (${path}${line ? `, line ${line}` : ''}): ${detail}`, line)
    )
  }
  let value: unknown
  try {
    value = unwrapWholeFloats(doc.toJS({ maxAliasCount: 100 }))
  } catch (err) {
    return unusable(path, malformed(path, `config.yaml could not be read (${path}): ${errorMessage(err)}`))
  }
  if (value === null || value === undefined) return { path, raw: {}, exists: true, error: null }
  if (!isPlainObject(value)) {
    // The line where the document's value starts (a list's first item, a lone scalar).
    const start = doc.contents?.range?.[0] ?? 0
    const line = text.slice(0, start).split('\n').length
    const what = Array.isArray(value) ? 'a list' : `a ${typeof value}`
    const message = `config.yaml must be a mapping at the top level (${path}, line ${line}), not ${what}`
    return unusable(path, malformed(path, message, line))
  }
  return {
    path,
    raw: withTurnsAsWritten(normaliseLegacyKeys(value), turnsAsWritten(value, doc)),
    exists: true,
    error: null
  }
}

/**
 * `max_turns` as the file spells it, before upstream's load_config moves a root-level one into `agent` (readers differ
 * on both: turn-budget.ts). `float`: the number was written as a float (`12.0`), which Python's str() keeps.
 */
export interface TurnsAsWritten {
  agent: { value: unknown; float: boolean } | null
  root: { value: unknown } | null
}
const TURNS = Symbol('max_turns as written')

function turnsAsWritten(value: Record<string, unknown>, doc: ReturnType<typeof parsePyYaml>): TurnsAsWritten {
  const section = isPlainObject(value.agent) ? value.agent : {}
  const node = doc.getIn(['agent', 'max_turns'], true) as { source?: unknown } | undefined
  const src = typeof node?.source === 'string' ? node.source.trim() : ''
  const agent = section.max_turns
  return {
    agent: !Object.hasOwn(section, 'max_turns')
      ? null
      : { value: agent, float: typeof agent === 'number' && !/^[-+]?0x/i.test(src) && /[.e]|inf|nan/i.test(src) },
    root: Object.hasOwn(value, 'max_turns') ? { value: value.max_turns } : null
  }
}

/** Keeps what the file said beside the parsed mapping, out of sight of anything that walks its keys. */
function withTurnsAsWritten(raw: RawConfig, turns: TurnsAsWritten | undefined): RawConfig {
  if (turns) Object.defineProperty(raw, TURNS, { value: turns, enumerable: false })
  return raw
}

/** `max_turns` as the profile's config.yaml spells it (a mapping built in memory: as it stands). */
export function maxTurnsAsWritten(raw: RawConfig): TurnsAsWritten {
  const kept = (raw as { [TURNS]?: TurnsAsWritten })[TURNS]
  if (kept) return kept
  const section = isPlainObject(raw.agent) ? raw.agent : {}
  return {
    agent: Object.hasOwn(section, 'max_turns') ? { value: section.max_turns, float: false } : null,
    root: Object.hasOwn(raw, 'max_turns') ? { value: raw.max_turns } : null
  }
}
