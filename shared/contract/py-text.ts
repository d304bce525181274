/**
 * Text as upstream's Python writes it, wherever Caduceus must produce the same bytes: `json.dumps` (stored multimodal
 * content, exports), `repr()` / `str()` (a conversation's id from its first message's parts, export text) and
 * `datetime.isoformat()`. `repr()` covers JSON-shaped values (str, int, bool, None, list, dict). Strings follow
 * CPython's rules: single quotes unless the text has a single quote and no double one; `\\`, the quote, `\t`, `\n`,
 * `\r` escaped; other non-printable characters (controls, format, separators other than the space, unassigned) as
 * `\xhh` / `\uhhhh` / `\Uhhhhhhhh`; every printable character as itself.
 */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    if (ch === quote || ch === '\\') out += `\\${ch}`
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch !== ' ' && NON_PRINTABLE.test(ch))
      out += code <= 0xff ? `\\x${hex(code, 2)}` : code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`
    else out += ch
  }
  return out + quote
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'string') return reprString(v)
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  // a whole JS number is Python's int; a float in Python's shortest round-trip form (a PyNumber keeps `2.0` a float)
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v)
  if (v instanceof PyNumber) return v.isFloat ? pyFloatRepr(Number(v)) : v.text
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
      .join(', ')}}`
  return reprString(String(v))
}

/** Python's truth value of a JSON value: None, False, 0, '', [] and {} are false. */
export const pyTruthy = (v: unknown): boolean =>
  (v instanceof PyNumber ? Number(v) !== 0 : true) &&
  v !== null &&
  v !== undefined &&
  v !== '' &&
  v !== 0 &&
  v !== false &&
  !(Array.isArray(v) && v.length === 0) &&
  !(typeof v === 'object' && !Array.isArray(v) && !(v instanceof PyNumber) && Object.keys(v).length === 0)

/** Python's `len()` of a string: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) n--
  }
  return n
}

/** Python's `str()`: a string as it is, anything else as its repr. */
export const pyStr = (v: unknown): string => (typeof v === 'string' ? v : pyRepr(v))

/**
 * The keys of a parsed mapping or list whose whole number was written as a float (`enabled: 1.0`): a JS number cannot
 * tell 1.0 from 1, and Python's str() can (`'1.0'`, `'1'`). Kept beside the value, out of sight of anything that walks
 * or compares its keys; a reader that copies a container carries them (`carryFloatMarks`).
 */
const WHOLE_FLOATS = new WeakMap<object, Set<string>>()

/** Notes that `container[key]` (a whole number) was written as a float. */
export function markWholeFloat(container: object, key: string | number): void {
  let keys = WHOLE_FLOATS.get(container)
  if (!keys) WHOLE_FLOATS.set(container, (keys = new Set()))
  keys.add(String(key))
}

/** `to`, a copy of `from` (same keys), keeps which of its numbers were written as floats. */
export function carryFloatMarks<T extends object>(from: object, to: T): T {
  const keys = WHOLE_FLOATS.get(from)
  if (keys) WHOLE_FLOATS.set(to, new Set(keys))
  return to
}

/**
 * Python's `str()` of a parsed config value, `container[key]`, where upstream turns a value into text before it
 * compares it (`str(v).lower() in {"true", "1", "yes"}`): a whole number written as a float is `'1.0'`, a bool
 * `'True'`, null `'None'`, an int its digits.
 */
export function pyStrAt(container: object, key: string | number): string {
  const v = (container as Record<string, unknown>)[key]
  if (typeof v === 'number' && WHOLE_FLOATS.get(container)?.has(String(key))) return pyFloatRepr(v)
  return pyStr(v)
}

/**
 * `json.dumps(v)` with its default `, ` / `: ` separators; `ensureAscii` (Python's default) escapes every non-ASCII
 * character as `\uXXXX`; `sortKeys` as `sort_keys=True`; `indent` as `indent=n` (one item per line, `,` then the
 * line break). Floats in Python's exponent form (`1e-07`); a PyNumber as its literal and a bigint as its digits (an
 * integer past 2**53 keeps every digit).
 */
export function pyJson(v: unknown, opts: { ensureAscii?: boolean; sortKeys?: boolean; indent?: number } = {}): string {
  const { ensureAscii = true, sortKeys = false, indent } = opts
  const str = (x: string) => (ensureAscii ? asciiJson(x) : JSON.stringify(x))
  // Python's item separator and the text before an item / a closing bracket at `depth`
  const sep = indent === undefined ? ', ' : ','
  const at = (depth: number) => (indent === undefined ? '' : `\n${' '.repeat(indent * depth)}`)
  const items = (open: string, parts: string[], close: string, depth: number) =>
    parts.length ? `${open}${parts.map((p) => at(depth + 1) + p).join(sep)}${at(depth)}${close}` : open + close
  const dump = (x: unknown, depth: number): string => {
    if (x === null || x === undefined) return 'null'
    if (typeof x === 'string') return str(x)
    if (typeof x === 'number')
      return Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : pyFloatRepr(x)) : nonFinite(x)
    if (typeof x === 'bigint') return x.toString()
    if (x instanceof PyNumber) return x.isFloat ? pyFloatRepr(Number(x)) : x.text
    if (typeof x === 'boolean') return x ? 'true' : 'false'
    if (Array.isArray(x))
      return items(
        '[',
        x.map((y) => dump(y, depth + 1)),
        ']',
        depth
      )
    if (typeof x === 'object') {
      const entries = Object.entries(x as Record<string, unknown>)
      if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      return items(
        '{',
        entries.map(([k, y]) => `${str(k)}: ${dump(y, depth + 1)}`),
        '}',
        depth
      )
    }
    return str(String(x))
  }
  return dump(v, 0)
}

/** Python's json token for a number JSON has no text for (`allow_nan`, its default). */
const nonFinite = (n: number) => (Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity')

/** Marks a non-finite number while JSON.stringify runs; the random part keeps any real text from matching it. */
const MARK = `\u0000nonfinite-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}:`

/**
 * A JSON number whose Python value a JavaScript number cannot tell: a float literal with a whole value (`2.0`, `1e3`,
 * `-0.0`: Python's json reads a float, which upstream re-dumps as `2.0` and SQLite stores as text '2.0', where a JS
 * number is the integer 2), or an integer past 2**53 (Python keeps every digit). `valueOf` is the nearest double, so
 * arithmetic and `Number()` read it as JSON.parse would.
 */
export class PyNumber {
  constructor(
    /** The literal as the file spells it. */
    readonly text: string,
    readonly isFloat: boolean
  ) {}
  valueOf(): number {
    return Number(this.text)
  }
  /**
   * A plain JSON.stringify writes the nearest number (never the object's fields); what must keep the literal writes it
   * itself (`pyJson`).
   */
  toJSON(): number {
    return Number(this.text)
  }
}

/**
 * `JSON.parse(text)` that also reads the bare `NaN`, `Infinity` and `-Infinity` Python's json writes and reads (upstream's
 * export holds them where a time is infinite); the tokens are recognised only outside strings. `exact`: a number
 * Python reads as other than a JS number says is a PyNumber (an import, which must store what upstream's would).
 */
export function parsePyJson(text: string, exact = false): unknown {
  if (!exact)
    try {
      return JSON.parse(text) as unknown
    } catch (err) {
      if (!/NaN|Infinity/.test(text)) throw err
    }
  const marked = markTokens(text, exact)
  return marked === text ? (JSON.parse(text) as unknown) : unmark(JSON.parse(marked))
}

/** The marked tokens of a parse turned into their values, in place (a walk: cheaper than JSON.parse's reviver). */
function unmark(v: unknown): unknown {
  if (typeof v === 'string') {
    if (!v.startsWith(MARK)) return v
    const token = v.slice(MARK.length + 1)
    return v.charAt(MARK.length) === 'n' ? Number(token) : new PyNumber(token, v.charAt(MARK.length) === 'f')
  }
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) v[i] = unmark(v[i])
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    for (const k of Object.keys(o))
      if (k === '__proto__') Object.defineProperty(o, k, { value: unmark(o[k]), enumerable: true, writable: true })
      else o[k] = unmark(o[k])
  }
  return v
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const NON_FINITE = /(?:NaN|-?Infinity)/y

/**
 * `text` with each bare NaN / Infinity / -Infinity (outside strings) turned into a marked JSON string, and with `exact`
 * each number a JS number would misread (a whole float, an integer past 2**53) too.
 */
function markTokens(text: string, exact: boolean): string {
  const quotedMark = JSON.stringify(MARK).slice(0, -1)
  let out = ''
  let from = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string: on to its closing quote (one not escaped by an odd run of backslashes)
      let j = i + 1
      for (;;) {
        const q = text.indexOf('"', j)
        if (q < 0) return out + text.slice(from) // unterminated: JSON.parse says why
        let slashes = 0
        while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++
        j = q + 1
        if (slashes % 2 === 0) break
      }
      i = j
      continue
    }
    let token: string | null = null
    let kind = 'n'
    if (c === 0x4e || c === 0x49 || c === 0x2d) {
      NON_FINITE.lastIndex = i
      token = NON_FINITE.exec(text)?.[0] ?? null
    }
    if (token === null && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
      NUMBER.lastIndex = i
      const literal = NUMBER.exec(text)?.[0]
      if (literal) {
        i += literal.length
        if (!exact) continue
        const float = /[.eE]/.test(literal)
        const v = Number(literal)
        if (float ? !Number.isInteger(v) : Number.isSafeInteger(v)) continue
        token = literal
        kind = float ? 'f' : 'i'
        i -= literal.length
      }
    }
    if (token === null) {
      i++
      continue
    }
    out += text.slice(from, i) + quotedMark + kind + token + '"'
    i += token.length
    from = i
  }
  return from === 0 ? text : out + text.slice(from)
}

/**
 * Python's `repr()` of a float: the shortest text that reads back as it, in fixed notation from 1e-4 up to 1e16
 * (`2.0`, `0.0001`), in exponent form outside that (`1e-05`, `1e+16`, `1.5e+300`).
 */
function pyFloatRepr(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'nan' : n > 0 ? 'inf' : '-inf'
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0'
  const [mantissa, e] = Math.abs(n).toExponential().split('e') as [string, string]
  return decimalText(n < 0 ? '-' : '', mantissa.replace('.', ''), Number(e))
}

/** Digits `d.ddd × 10^exp` as repr writes them: fixed from 1e-4 up to 1e16 (`.0` when whole), else `1e-05`. */
function decimalText(sign: string, digits: string, exp: number) {
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
    return `${sign}${digits.slice(0, exp + 1).padEnd(exp + 1, '0')}.${digits.slice(exp + 1) || '0'}`
  }
  const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  return `${sign}${head}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
}

const asciiJson = (s: string) =>
  JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** `datetime.isoformat()` of an epoch (or a numeric string) in UTC with `Z`: whole seconds, or microseconds when any. */
export function isoUtc(t: unknown, secondsOnly = false): string | null {
  const n =
    typeof t === 'number' || t instanceof PyNumber
      ? Number(t)
      : typeof t === 'string' && t.trim() !== ''
        ? Number(t)
        : NaN
  if (!Number.isFinite(n)) return t == null ? null : String(t)
  // As datetime.fromtimestamp splits it: the exact fraction times 1e6, rounded half to even, a full second carried.
  // `n * 1e6` first would round at an epoch's magnitude (ulp 0.25 µs) and land a microsecond off upstream's text.
  let sec = Math.trunc(n)
  let frac = halfEven((n - sec) * 1e6)
  if (frac >= 1e6) [sec, frac] = [sec + 1, frac - 1e6]
  else if (frac < 0) [sec, frac] = [sec - 1, frac + 1e6]
  if (secondsOnly) frac = 0 // isoformat(timespec="seconds") drops the rounded fraction
  const base = new Date(sec * 1000).toISOString().slice(0, 19)
  return `${base}${frac ? `.${String(frac).padStart(6, '0')}` : ''}Z`
}

const halfEven = (x: number) => {
  const f = Math.floor(x)
  const d = x - f
  return d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1
}

/** Python's whitespace (`str.isspace()`): JS's `trim()` differs (it strips U+FEFF, keeps U+001C–U+001F and U+0085). */
const isPySpace = (c: number) =>
  (c >= 0x09 && c <= 0x0d) ||
  (c >= 0x1c && c <= 0x20) ||
  c === 0x85 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000

/** `str.strip()`, in one pass from each end (a regex for the trailing run is quadratic on long runs of spaces). */
export function pyStrip(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && isPySpace(s.charCodeAt(start))) start++
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

/**
 * Unicode decimal digits (`\p{Nd}`) as ASCII, as Python's int()/float() accept them ('５１２' is 512).
 * Every Nd run is made of whole sets of ten starting at its zero, so a digit's value is its offset in the run mod 10.
 */
const ND = /\p{Nd}/u
function asciiDigits(s: string): string {
  let out = ''
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (cp < 0x80 || !ND.test(ch)) {
      out += ch
      continue
    }
    let zero = cp
    while (zero > 0 && ND.test(String.fromCodePoint(zero - 1))) zero--
    out += String((cp - zero) % 10)
  }
  return out
}

const DIGITS = String.raw`[0-9](?:_?[0-9])*`
const PY_INT = new RegExp(`^[+-]?${DIGITS}$`)
const PY_FLOAT = new RegExp(
  String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:e[+-]?${DIGITS})?|inf(?:inity)?|nan)$`,
  'i'
)

/**
 * Python's `int(text)` in base 10, or null where it raises ValueError: Python's whitespace around it, a sign,
 * any Unicode decimal digits, single underscores between digits ('512.0' is an error).
 */
export function pythonInt(text: string): number | null {
  const n = pythonBigInt(text)
  return n === null ? null : Number(n)
}

/**
 * Python's `int(v)` of a parsed YAML or JSON value, or null where it raises: a bool as 1 or 0, a finite number
 * truncated toward zero (a PyNumber's or a bigint's nearest double), text in int()'s own syntax (`pythonInt`).
 */
export function pyIntValue(v: unknown): number | null {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'bigint' || v instanceof PyNumber) v = Number(v)
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : null
  return typeof v === 'string' ? pythonInt(v) : null
}

/** What Python's `int(v)` raises where `pyIntValue` is null. */
export function pyIntError(v: unknown): string {
  if (typeof v === 'number') return `cannot convert float ${Number.isNaN(v) ? 'NaN' : 'infinity'} to integer`
  if (typeof v === 'string') return `invalid literal for int() with base 10: ${pyRepr(v)}`
  return `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`
}

/** What Python's `float(v)` raises where `pyFloatValue` is null. */
export function pyFloatError(v: unknown): string {
  return typeof v === 'string'
    ? `could not convert string to float: ${pyRepr(v)}`
    : `float() argument must be a string or a real number, not '${pyTypeName(v)}'`
}

/** Python's type name of a parsed YAML or JSON value, as its error messages give it. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType'
  if (Array.isArray(v)) return 'list'
  if (v instanceof PyNumber) return v.isFloat ? 'float' : 'int'
  if (typeof v === 'object') return 'dict'
  if (typeof v === 'string') return 'str'
  if (typeof v === 'boolean') return 'bool'
  return typeof v === 'bigint' || Number.isInteger(v) ? 'int' : 'float'
}

/** `pythonInt` to the digit (Python's int keeps every digit of a number past 2**53). */
export function pythonBigInt(text: string): bigint | null {
  const t = asciiDigits(pyStrip(text))
  return PY_INT.test(t) ? BigInt(t.replace(/_/g, '')) : null
}

/**
 * Python's `float(text)`, or null where it raises ValueError (upstream then uses its default): the whole text,
 * Python's whitespace around it, any Unicode decimal digits, underscores only between digits, `inf` / `infinity` /
 * `nan` in any case (`Number.parseFloat` would read `10abc` as 10).
 */
export function pythonFloat(text: string): number | null {
  const t = asciiDigits(pyStrip(text))
  if (!PY_FLOAT.test(t)) return null
  const sign = t.startsWith('-') ? -1 : 1
  const word = t.replace(/^[+-]/, '').toLowerCase()
  if (word === 'nan') return NaN
  if (word.startsWith('inf')) return sign * Infinity
  return Number(t.replace(/_/g, ''))
}

/**
 * Python's `float(v)` of a parsed YAML or JSON value, or null where it raises: a number as it is (a PyNumber's nearest
 * double), a bool as 1 or 0, text in float()'s own syntax (`pythonFloat`); NaN and infinities stay what float() gives.
 */
export function pyFloatValue(v: unknown): number | null {
  if (typeof v === 'number' || v instanceof PyNumber) return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  return typeof v === 'string' ? pythonFloat(v) : null
}
