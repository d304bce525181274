/**
 * A cron expression as upstream's scheduler reads it (croniter 6, upstream's pinned version), rewritten so cron-parser
 * reads the same set of times. The two differ on forms upstream accepts and writes to jobs.json unchanged:
 * - a range whose end comes before its start wraps around the field (`22-2` hours is 22, 23, 0, 1, 2; `6-0` days of
 *   the week is Saturday and Sunday), where cron-parser refuses it;
 * - a range from a value to itself (`18-18`) is the whole field, stepped (`59/5` minutes, i.e. `59-59/5`, is 0, 5, …);
 * - `a/s` runs to the field's end, which for the day of the week is 6 (Saturday), never 7;
 * - a value named twice (`0,7` Sunday twice, `1,1`) counts once, where cron-parser refuses the list;
 * - a day-of-month or day-of-week field that covers every value is a wildcard for the "either day matches" rule
 *   unless the other day field has no `*` in it;
 * - `@daily`, `@hourly`, `@weekly`, `@monthly`, `@yearly`, `@annually`, `@midnight` name 5-field expressions;
 * - a seventh field is the year (1970-2099), which cron-parser has no field for.
 * Fields written with names, `L`, `#` or `?` are left to cron-parser as written.
 */

/** croniter's field order: minute, hour, day of month, month, day of week, then the optional seconds and year. */
const RANGES: ReadonlyArray<readonly [number, number]> = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
  [0, 59],
  [1970, 2099]
]
const DOM = 2
const DOW = 4

const ALIASES: Record<string, string> = {
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *'
}

class BadField extends Error {}

/** croniter's low-value aliases: Sunday as 7 (5 fields only), and a day or month 0 as 1 (6 fields only, day only). */
function alias(v: number, field: number, count: number): number {
  if (field === DOW && v === 7 && count === 5) return 0
  if (field === DOM && v === 0 && count === 6) return 1
  return v
}

/** The values one comma part names, as croniter expands it; null when the part is not all digits, `*`, `-` and `/`. */
function partValues(part: string, field: number, count: number): number[] | null {
  const [lo, hi] = RANGES[field]!
  const inField = (v: number) => {
    if (v < lo || v > hi) throw new BadField(`${v} is out of range`)
    return v
  }
  if (/^\d+$/.test(part)) return [inField(alias(Number(part), field, count))]
  const text = part.replace(/^\*\/(\d+)$/, `${lo}-${hi}/$1`)
  const m = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(text) ?? /^(\d+)\/(\d+)$/.exec(text)
  if (!m) return null
  const isRange = text.includes('-')
  const low = alias(Number(m[1]), field, count)
  const high = isRange ? alias(Number(m[2]), field, count) : hi
  const step = Number(isRange ? (m[3] ?? 1) : m[2])
  if (Math.max(low, high) > hi) throw new BadField(`${part} is out of range`)
  if (!(step > 0)) throw new BadField(`${part} has no usable step`)
  const out: number[] = []
  const run = (from: number, to: number) => {
    for (let v = from; v <= to; v += step) out.push(v)
  }
  if (low > high) {
    // Wraps: from `low` to the field's end, then on from its start, keeping the step across the seam.
    run(low, hi)
    const last = out[out.length - 1]
    const size = hi - lo + 1
    let skip = 0
    if (last !== undefined) {
      const fromEnd = hi - last
      if (last - lo + step > size && fromEnd < step) skip = step - fromEnd
    }
    run(lo + skip, high)
  } else if (low === high) run(lo, hi)
  else run(low, high)
  return out.map((v) => inField(alias(v, field, count)))
}

/** One field as croniter reads it: `*`, or the sorted values; null to leave the field as written. */
function fieldText(text: string, field: number, fields: string[]): string | null {
  if (text === '*') return '*'
  const values = new Set<number>()
  for (const part of text.split(',')) {
    const vs = partValues(part, field, fields.length)
    if (!vs) return null
    for (const v of vs) values.add(v)
  }
  const [lo, hi] = RANGES[field]!
  if (values.size === hi - lo + 1) {
    // A full day field stays a list (the "either day" rule) while the other day field has no `*` in it.
    const keepList = (field === DOM && !fields[DOW]!.includes('*')) || (field === DOW && !fields[DOM]!.includes('*'))
    if (!keepList) return '*'
  }
  return [...values].sort((a, b) => a - b).join(',')
}

/**
 * What cron-parser is to read for the croniter expression `expr`: the expression (seconds moved first when there
 * are six or seven fields, as cron-parser reads them), for croniter's seventh field the years it may run in
 * (cron-parser has no year: the caller skips the others; null for any year), and whether the hour field is written
 * from `*` (all hours, or a step over them: run in each real hour when a clock goes back). Null when croniter
 * would refuse it or it has not 5, 6 or 7 fields.
 */
export function cronParserExpr(expr: string): { expr: string; years: number[] | null; everyHour: boolean } | null {
  const trimmed = expr.trim()
  const fields = (ALIASES[trimmed.toLowerCase()] ?? trimmed).split(/\s+/)
  if (fields.length < 5 || fields.length > 7) return null
  let out: string[]
  try {
    out = fields.map((f, i) => (/^[\d*,/-]+$/.test(f) ? (fieldText(f, i, fields) ?? f) : f))
  } catch (err) {
    if (err instanceof BadField) return null
    throw err
  }
  let years: number[] | null = null
  if (out.length === 7) {
    const y = out.pop()!
    if (y !== '*') {
      if (!/^[\d,]+$/.test(y)) return null
      years = y.split(',').map(Number)
    }
  }
  return {
    expr: out.length === 6 ? [out[5], ...out.slice(0, 5)].join(' ') : out.join(' '),
    years,
    everyHour: fields[1]!.startsWith('*')
  }
}
