/**
 * config.yaml as upstream reads it: PyYAML's safe loader (YAML 1.1), not YAML 1.2. Where the two differ on text a
 * person writes, upstream's reading wins: `yes`/`no`/`on`/`off` are booleans, `0755` is octal (493), `1_000` is 1000,
 * `1:30` is sexagesimal (90), `1e3` is a string (a float needs a dot), `2024-01-02` is a date, a repeated key keeps
 * its last value, and `<<: *anchor` merges (test/fixtures/upstream/config-scalars and config-load).
 *
 * A date becomes its ISO 8601 text (Python's `isoformat()`: `2024-01-02`, `2024-01-02T03:04:05+01:00`): JSON has no
 * date, the renderer and every typed reader expect text, and that text is what upstream prints for it.
 *
 * Written back, an untouched scalar keeps the spelling it had (`060` stays `060`, not `48`), and a new string that
 * PyYAML would read as something else (`'1_000'`, `'1:30'`, `'2024-01-02'`, `'no'`) is quoted.
 */
import { parseDocument, Scalar, type Document, type ScalarTag, type Tags } from 'yaml'
import { markWholeFloat } from '@shared/contract/py-text'

const BOOL = 'tag:yaml.org,2002:bool'
const INT = 'tag:yaml.org,2002:int'
const FLOAT = 'tag:yaml.org,2002:float'
const STR = 'tag:yaml.org,2002:str'
const TIMESTAMP = 'tag:yaml.org,2002:timestamp'

/** PyYAML's implicit resolvers (yaml/resolver.py), anchored. */
const BOOL_RE = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/
const INT_RE =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/
const FLOAT_RE =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/
const TIMESTAMP_RE =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/
const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/

/** Base-60 digits (`1:30` → 90), as PyYAML's constructor sums them. */
const sexagesimal = (text: string, parse: (d: string) => number): number =>
  text.split(':').reduce((acc, digit) => acc * 60 + parse(digit), 0)

function resolveInt(source: string): number {
  let text = source.replace(/_/g, '')
  let sign = 1
  if (text[0] === '-') sign = -1
  if (text[0] === '-' || text[0] === '+') text = text.slice(1)
  if (text === '0') return 0
  if (text.startsWith('0b')) return sign * parseInt(text.slice(2), 2)
  if (text.startsWith('0x')) return sign * parseInt(text.slice(2), 16)
  if (text[0] === '0') return sign * parseInt(text, 8)
  if (text.includes(':')) return sign * sexagesimal(text, (d) => parseInt(d, 10))
  return sign * parseInt(text, 10)
}

function resolveFloat(source: string): number {
  let text = source.replace(/_/g, '').toLowerCase()
  let sign = 1
  if (text[0] === '-') sign = -1
  if (text[0] === '-' || text[0] === '+') text = text.slice(1)
  if (text === '.inf') return sign * Infinity
  if (text === '.nan') return NaN
  if (text.includes(':')) return sign * sexagesimal(text, (d) => parseFloat(d))
  return sign * parseFloat(text)
}

const pad = (n: number | string, width = 2) => String(n).padStart(width, '0')

/** PyYAML's date/datetime as Python's `isoformat()` gives it; null for a day that does not exist (PyYAML fails). */
function resolveTimestamp(source: string): string | null {
  const m = TIMESTAMP_PARTS.exec(source)
  if (!m) return null
  const [, y, mo, d, h, mi, s, fraction, tz, tzSign, tzHour, tzMinute] = m
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
  if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d) || Number(mo) < 1) return null
  const date = `${y}-${pad(mo)}-${pad(d)}`
  if (h === undefined) return date
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null
  const micro = fraction ? Number(fraction.slice(0, 6).padEnd(6, '0')) : 0
  let text = `${date}T${pad(h)}:${mi}:${s}${micro ? `.${pad(micro, 6)}` : ''}`
  if (tzSign) {
    const minutes = Number(tzHour) * 60 + Number(tzMinute ?? 0)
    text += `${tzSign === '-' && minutes ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
  } else if (tz) text += '+00:00'
  return text
}

/** A scalar written back keeps its own spelling when that spelling still reads as its (possibly edited) value. */
const keepSource =
  (test: RegExp, resolve: (s: string) => unknown) =>
  (node: { value: unknown; source?: string; type?: string }): string | null =>
    typeof node.source === 'string' &&
    (node.type === undefined || node.type === Scalar.PLAIN) &&
    test.test(node.source) &&
    Object.is(resolve(node.source), node.value)
      ? node.source
      : null

const keepBool = keepSource(BOOL_RE, (w) => /^(?:yes|on|true)$/i.test(w))
const keepInt = keepSource(INT_RE, resolveInt)
const keepFloat = keepSource(FLOAT_RE, resolveFloat)
const keepTimestamp = keepSource(TIMESTAMP_RE, resolveTimestamp)

const PY_BOOL: ScalarTag = {
  tag: BOOL,
  default: true,
  test: BOOL_RE,
  resolve: (word) => /^(?:yes|on|true)$/i.test(word),
  identify: (value) => typeof value === 'boolean',
  stringify: (node) => keepBool(node) ?? (node.value ? 'true' : 'false')
}

const PY_INT: ScalarTag = {
  tag: INT,
  default: true,
  test: INT_RE,
  resolve: resolveInt,
  identify: (value) => typeof value === 'number' && Number.isInteger(value),
  stringify: (node) => keepInt(node) ?? String(node.value)
}

const PY_FLOAT: ScalarTag = {
  tag: FLOAT,
  default: true,
  test: FLOAT_RE,
  resolve: resolveFloat,
  identify: (value) => typeof value === 'number' && !Number.isInteger(value),
  stringify: (node) => {
    const kept = keepFloat(node)
    if (kept !== null) return kept
    const n = Number(node.value)
    if (Number.isNaN(n)) return '.nan'
    if (!Number.isFinite(n)) return n > 0 ? '.inf' : '-.inf'
    // PyYAML's float needs a dot, and a signed exponent: 1e+21 would read back as a string.
    const text = String(n)
    return text.includes('e') && !text.split('e')[0].includes('.') ? text.replace('e', '.0e') : text
  }
}

/** Resolved to text, so its stringify is the string tag's (below), which writes an untouched date as it was. */
const PY_TIMESTAMP: ScalarTag = {
  tag: TIMESTAMP,
  default: true,
  test: TIMESTAMP_RE,
  resolve: (text, onError) => {
    const iso = resolveTimestamp(text)
    if (iso === null) onError(`${text} is not a date PyYAML can read`)
    return iso ?? text
  },
  identify: () => false
}

/** The tag list for config.yaml: YAML 1.2 core's map/seq/str/null plus PyYAML's bool, int, float and timestamp. */
export const pyYamlTags = (tags: Tags): Tags => {
  const kept = tags.filter((t) => typeof t === 'string' || ![BOOL, INT, FLOAT].includes(t.tag))
  return kept
    .map((t) => {
      if (typeof t === 'string' || t.tag !== STR || !('stringify' in t) || !t.stringify) return t
      const plain = t.stringify
      const str: ScalarTag = {
        ...(t as ScalarTag),
        stringify: (node, ctx, onComment, onChompKeep) =>
          keepTimestamp(node) ?? plain.call(t, node, ctx, onComment, onChompKeep)
      }
      return str
    })
    .concat([PY_BOOL, PY_INT, PY_FLOAT, PY_TIMESTAMP])
}

/**
 * How config.yaml is parsed for reading and for editing in place. `wholeFloats` (reading only): a whole float
 * (`1.0`) stays a WholeFloat in the document's JS, which `unwrapWholeFloats` turns back into a number.
 */
export function parsePyYaml(text: string, wholeFloats = false): Document.Parsed {
  return parseDocument(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, {
    customTags: wholeFloats ? readTags : pyYamlTags,
    merge: true,
    uniqueKeys: false,
    // a WholeFloat as a mapping key is written as its number, as before, without the yaml package's console warning
    ...(wholeFloats ? { logLevel: 'error' as const } : {})
  })
}

/** A whole number written as a float, on its way to being marked (no toJSON: the yaml package's toJS keeps it). */
class WholeFloat {
  constructor(readonly n: number) {}
  valueOf(): number {
    return this.n
  }
  /** As a mapping key: the number's text, as the key read before (`1.0:` is the key '1'). */
  toString(): string {
    return String(this.n)
  }
}

/** PY_FLOAT for reading: a whole value keeps that it was a float (Python's str() of it is `1.0`, not `1`). */
const PY_FLOAT_READ: ScalarTag = {
  ...PY_FLOAT,
  resolve: (source) => {
    const n = resolveFloat(source)
    return Number.isInteger(n) ? new WholeFloat(n) : n
  }
}
const readTags = (tags: Tags): Tags => pyYamlTags(tags).map((t) => (t === PY_FLOAT ? PY_FLOAT_READ : t))

/**
 * `value` (the JS of a `wholeFloats` parse) with each whole float a plain number again, marked on its mapping or list
 * as written as a float (py-text's pyStrAt reads the mark), in place.
 */
export function unwrapWholeFloats(value: unknown, seen = new Set<object>()): unknown {
  if (value instanceof WholeFloat) return value.n
  if (value === null || typeof value !== 'object' || seen.has(value)) return value
  seen.add(value)
  const node = value as Record<string, unknown>
  for (const key of Object.keys(node)) {
    const v = node[key]
    if (v instanceof WholeFloat) {
      node[key] = v.n
      markWholeFloat(node, key)
    } else unwrapWholeFloats(v, seen)
  }
  return value
}
