/**
 * Text as upstream's Python writes it, for the export formats whose bytes other tools read or hash: `json.dumps`
 * with its default `, ` / `: ` separators (keys sorted when asked), and `datetime.isoformat()` of an epoch in UTC.
 */

/** `json.dumps(v, ensure_ascii=False[, sort_keys=True])`. */
export function pyJson(v: unknown, sortKeys = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => pyJson(x, sortKeys)).join(', ')}]`
  if (v && typeof v === 'object') {
    const keys = Object.keys(v)
    if (sortKeys) keys.sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${pyJson((v as Record<string, unknown>)[k], sortKeys)}`).join(', ')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

/** An epoch (or a numeric string) as UTC ISO with `Z`: whole seconds, or microseconds when there are any. */
export function isoUtc(t: unknown, secondsOnly = false): string | null {
  const n = typeof t === 'number' ? t : typeof t === 'string' && t.trim() !== '' ? Number(t) : NaN
  if (!Number.isFinite(n)) return t == null ? null : String(t)
  const us = secondsOnly ? Math.floor(n) * 1e6 : Math.round(n * 1e6)
  const sec = Math.floor(us / 1e6)
  const frac = us - sec * 1e6
  const base = new Date(sec * 1000).toISOString().slice(0, 19)
  return `${base}${frac ? `.${String(frac).padStart(6, '0')}` : ''}Z`
}

/** `str(v)` for what a JSON value can be: None, True/False, numbers; lists and objects as their JSON. */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  return pyJson(v)
}
