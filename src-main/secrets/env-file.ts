/**
 * `.env` parsing with upstream semantics (utf-8 BOM, `export ` prefix, quotes, inline comments) that never
 * touches process.env: each profile's secrets stay in its own scope (hermes-spec §4.3).
 */
import { readFileSync, statSync } from 'node:fs'
import { replaceFile } from '../files'
import { join } from 'node:path'

const KEY_RE = /^[A-Za-z_][A-Za-z0-9_.]*$/

export function envPath(home: string): string {
  return join(home, '.env')
}

/** Parse one `.env` text. Malformed lines are skipped, never fatal. */
function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  for (const rawLine of body.split(/\r?\n/)) {
    const parsed = parseLine(rawLine)
    if (parsed) out[parsed[0]] = parsed[1]
  }
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
const memo = new Map<string, { stamp: string; values: Readonly<Record<string, string>> }>()

/** Read `<home>/.env`; a missing or unreadable file is an empty scope. Returns a fresh copy. */
export function readEnvFile(path: string): Record<string, string> {
  let stamp: string
  try {
    const s = statSync(path, { bigint: true })
    stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch {
    memo.delete(path)
    return {}
  }
  const hit = memo.get(path)
  if (hit && hit.stamp === stamp) return { ...hit.values }
  try {
    const values = Object.freeze(parseEnv(readFileSync(path, 'utf8')))
    memo.set(path, { stamp, values })
    return { ...values }
  } catch {
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
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    // Only a missing file is empty: an unreadable one (EACCES, EIO, EMFILE) rewritten as "just this key" would lose
    // every other secret in it.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
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
  replaceFile(path, kept.length ? kept.join('\n') + '\n' : '', {
    modeOf: (existing) => (existing === null ? 0o600 : existing & 0o770),
    followLinks: true
  })
}
