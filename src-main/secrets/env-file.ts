/**
 * `.env` parsing with upstream semantics (utf-8 BOM, `export ` prefix, quotes, inline comments) that never
 * touches process.env: each profile's secrets stay in its own scope (hermes-spec §4.3).
 */
import { readFileSync, statSync } from 'node:fs'
import { readFileIfExists, refuseUnwritable, replaceFile } from '../files'
import { join, resolve } from 'node:path'
import { errorMessage } from '@shared/contract/errors'

const KEY_RE = /^[A-Za-z_][A-Za-z0-9_.]*$/

export function envPath(home: string): string {
  return join(home, '.env')
}

/**
 * A profile's variables as upstream reads them running that profile (`hermes -p NAME`, its service units): HERMES_HOME
 * is the profile's own folder, whatever this process's says; then the profile's .env (`dotenv`, when already read)
 * over the environment.
 */
export function profileEnv(
  home: string,
  dotenv: Record<string, string> = readEnvFile(envPath(home))
): (name: string) => string | undefined {
  const own = resolve(home)
  return (name) => (name === 'HERMES_HOME' ? own : Object.hasOwn(dotenv, name) ? dotenv[name] : process.env[name])
}

/**
 * Why the profile's `.env` is there but cannot be read (no permission, a folder in its place, a symlink loop), or
 * null. The readers take such a file as an empty scope, so this is what says otherwise: upstream Hermes stops at
 * start-up with a `.env` it may not read, and here the profile shows it and its turns are refused (resolveRuntime)
 * rather than run without the keys and settings the file holds.
 */
export function envFileProblem(home: string): string | null {
  const file = envPath(home)
  try {
    readFileIfExists(file)
    return null
  } catch (err) {
    return (
      `${file} cannot be read (${errorMessage(err)}): its keys and settings are not used, and turns are refused ` +
      `until it can be read (upstream Hermes does not start with a .env it may not read)`
    )
  }
}

/** One `KEY=value` of a `.env` text as read before `${VAR}` expansion (null: a bare `KEY` with no `=`). */
type Binding = [key: string, value: string | null]

/**
 * Parse one `.env` text the way the reader of upstream's agent does (python-dotenv, which `load_hermes_dotenv`
 * runs on the profile's `.env`; golden scripts/golden/env_values.py): a quoted value may span lines, double
 * quotes take backslash escapes, single quotes only `\\` and `\'`, an unquoted value ends at ` #`. A binding it
 * cannot read is skipped up to the end of its line, never fatal.
 */
function parseEnv(text: string): Binding[] {
  const body = sanitizedLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  const out: Binding[] = []
  let pos = 0
  /** Match `re` (sticky) at the cursor and move past it; null when it does not match there. */
  const take = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = pos
    const m = re.exec(body)
    if (m) pos = re.lastIndex
    return m
  }
  const must = (re: RegExp): RegExpExecArray => {
    const m = take(re)
    if (!m) throw new SkipBinding()
    return m
  }
  while (pos < body.length) {
    take(/\s*/y)
    if (pos >= body.length) break
    try {
      take(/(?:export[^\S\r\n]+)?/y)
      const key = body[pos] === '#' ? null : must(body[pos] === "'" ? /'([^']+)'/y : /([^=#\s]+)/y)[1]!
      take(/[^\S\r\n]*/y)
      let value: string | null = null
      if (body[pos] === '=') {
        take(/=[^\S\r\n]*/y)
        value = readValue(body[pos], must, take)
      }
      take(/(?:[^\S\r\n]*#[^\r\n]*)?/y)
      must(/[^\S\r\n]*(?:\r\n|\n|\r|$)/y)
      if (key !== null) out.push([key, value])
    } catch (err) {
      if (!(err instanceof SkipBinding)) throw err
      // Skipped from where reading failed (a quoted value may already have run onto later lines).
      take(/[^\r\n]*(?:\r|\n|\r\n)?/y)
    }
  }
  return out
}

class SkipBinding extends Error {}

/** Python's `str.strip()` whitespace. */
const PY_SPACE = '[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
const PY_TRIM = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g')

/**
 * The file as upstream's loader hands it to python-dotenv: before parsing it rewrites the `.env` with every
 * line stripped of surrounding whitespace and NUL bytes, line ends as `\n` (so a multi-line value's indent is lost).
 */
function sanitizedLines(text: string): string {
  if (!text) return text
  const lines = text.replace(/\0/g, '').split(/\r\n|\n|\r/)
  if (lines.at(-1) === '') lines.pop()
  return lines.map((l) => l.replace(PY_TRIM, '') + '\n').join('')
}

const DOUBLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v'
}

function readValue(
  first: string | undefined,
  must: (re: RegExp) => RegExpExecArray,
  take: (re: RegExp) => RegExpExecArray | null
): string {
  if (first === "'") return must(/'((?:\\'|[^'])*)'/y)[1]!.replace(/\\([\\'])/g, '$1')
  if (first === '"')
    return must(/"((?:\\"|[^"])*)"/y)[1]!.replace(/\\([\\'"abfnrtv])/g, (_m, c: string) => DOUBLE_ESCAPES[c]!)
  if (first === undefined || first === '\n' || first === '\r') return ''
  return take(/([^\r\n]*)/y)![1]!
    .replace(/\s+#.*/, '')
    .trimEnd()
}

/**
 * `${NAME}` and `${NAME:-default}` expanded as upstream's loader does (in every kind of value): from the values
 * above it in the same file first, then the process environment; unknown is the default, else empty.
 */
function expand(bindings: Binding[], environment: NodeJS.ProcessEnv): Record<string, string> {
  const seen = new Map<string, string | null>()
  for (const [key, value] of bindings) {
    const resolved =
      value === null
        ? null
        : value.replace(/\$\{([^}:]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
            if (seen.has(name)) return seen.get(name) ?? ''
            const v = environment[name]
            return v !== undefined ? v : (fallback ?? '')
          })
    seen.set(key, resolved)
  }
  const out: Record<string, string> = {}
  for (const [key, value] of seen) if (value !== null) out[key] = value
  return out
}

function parseLine(rawLine: string): [string, string] | null {
  let line = rawLine.trim()
  if (!line || line.startsWith('#')) return null
  if (line.startsWith('export ')) line = line.slice(7).trimStart()
  const eq = line.indexOf('=')
  if (eq <= 0) return null
  const key = line.slice(0, eq).trim()
  if (!KEY_RE.test(key)) return null
  return [key, parseValue(line.slice(eq + 1).trim())]
}

function parseValue(v: string): string {
  const q = v[0]
  if (q === '"' || q === "'") {
    // Find the closing quote (skipping escaped ones inside double quotes); anything after it is a comment.
    for (let i = 1; i < v.length; i++) {
      if (q === '"' && v[i] === '\\') {
        i++
        continue
      }
      if (v[i] === q) {
        const inner = v.slice(1, i)
        return q === '"' ? unescapeDouble(inner) : inner
      }
    }
    // Unterminated quote: keep the text literally rather than losing it.
    return v
  }
  const hash = v.search(/\s#/)
  return (hash >= 0 ? v.slice(0, hash) : v).trim()
}

function unescapeDouble(s: string): string {
  return s.replace(/\\([nrt"\\$])/g, (_m, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c as 'n'] ?? c)
}

// Per-turn reads cost one stat: the parse is memoized on (inode, size, mtime, ctime).
const memo = new Map<string, { stamp: string; bindings: readonly Binding[] }>()

/** Read `<home>/.env`; a missing or unreadable file is an empty scope. Returns a fresh copy. */
export function readEnvFile(path: string): Record<string, string> {
  let stamp: string
  try {
    const s = statSync(path, { bigint: true })
    stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    // Not there (or its folder cannot be searched): an empty scope, as upstream's exists() check gives.
    memo.delete(path)
    return {}
  }
  const hit = memo.get(path)
  // Expansion reads the process environment, so only the parse is memoized.
  if (hit && hit.stamp === stamp) return expand([...hit.bindings], process.env)
  try {
    const bindings = parseEnv(readFileSync(path, 'utf8'))
    memo.set(path, { stamp, bindings })
    return expand(bindings, process.env)
  } catch {
    // A folder in its place (python-dotenv's isfile check skips it too) or no read permission: an empty scope.
    return {}
  }
}

/**
 * A value as both of upstream's readers read it back (its own `.env` parser and python-dotenv, which fills the
 * agent's environment): plain where nothing in it means anything to them (upstream's rule), else single-quoted —
 * literal for both, with no escapes and no `${VAR}` expansion — else (a `'` or a line break in it) double-quoted
 * with `\\` and `\"` escaped, as upstream writes it.
 */
function formatValue(value: string): string {
  const special = /[#"'$\r\n]/.test(value) || value !== value.trim()
  if (!special) return value
  if (!/['\r\n]/.test(value)) return `'${value}'`
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`
}

/**
 * Set (or, with null, remove) one variable, keeping every other line and comment as written.
 * Written via a 0600 temp file + rename so a crash never leaves a half-written or world-readable file.
 */
export function updateEnvFile(path: string, name: string, value: string | null): void {
  if (!KEY_RE.test(name)) throw new Error(`invalid environment variable name: ${name}`)
  // Only a missing file is empty: an unreadable one (EACCES, EIO, EMFILE) rewritten as "just this key" would lose
  // every other secret in it, so readFileIfExists throws for it.
  let text = readFileIfExists(path) ?? ''
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const lines = text ? text.split(/\r?\n/) : []
  if (lines.length && lines[lines.length - 1] === '') lines.pop()
  const kept: string[] = []
  let written = false
  for (const line of lines) {
    const parsed = parseLine(line)
    if (parsed && parsed[0] === name) {
      if (value !== null && !written) kept.push(`${name}=${formatValue(value)}`)
      written = true
      continue
    }
    kept.push(line)
  }
  if (value !== null && !written) kept.push(`${name}=${formatValue(value)}`)
  // An existing file keeps its owner and group bits (e.g. 0640 on a Docker volume), as upstream keeps its mode, but
  // is never left readable by everyone; a new one is 0600. A symlinked .env stays a symlink.
  refuseUnwritable('.env', () =>
    replaceFile(path, kept.length ? kept.join('\n') + '\n' : '', {
      modeOf: (existing) => (existing === null ? 0o600 : existing & 0o770),
      followLinks: true
    })
  )
}
