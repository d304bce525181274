/**
 * The timestamps upstream's schedule reader takes for a one-shot: the text goes to Python's
 * `datetime.fromisoformat` (3.11+) after every `Z` becomes `+00:00`. So more than the `2026-02-03T14:00` the help
 * shows: an hour alone (`T09`), basic forms (`20270110T0930`, `T093015`), a fraction after the seconds (`.` or `,`),
 * any one character between date and time (`2027-01-10 09:30`, `…t09:30`), and an offset as `+05`, `+0530` or
 * `+05:30` (one space before it allowed). Golden table: test/fixtures/upstream/cron-edges (scripts/golden/cron_edges.py).
 */

export interface IsoParts {
  /** The wall time as `YYYY-MM-DDTHH:MM:SS` (seconds always written, as Python's `isoformat()` writes them). */
  wall: string
  /** Microseconds, as Python keeps them (more than six digits are cut). */
  micro: number
  /** The explicit offset in minutes; null for a naive time. */
  offset: number | null
}

const DATE = /^(\d{4})(-?)(\d{2})\2(\d{2})/
// HH, HH:MM, HHMM, HH:MM:SS, HHMMSS (the same separator throughout), a fraction only after the seconds.
const TIME = /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2})(?:[.,](\d+))?)?)?$/
const OFFSET = /^(.*?) ?([+-])(\d{2})(?::?(\d{2}))?$/

/** A time upstream refuses (or that Caduceus refuses on purpose), with why in the user's terms. */
export class IsoRefusal extends Error {}

const pad = (n: number) => String(n).padStart(2, '0')

function daysIn(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate()
}

/**
 * The parts of `text` read as upstream reads a one-shot time, or null when it is not a form upstream reads. Throws
 * `IsoRefusal` for a date or time out of range (as upstream refuses it), and for forms CPython accepts but no reader
 * of jobs.json should be handed: a fraction after the hour or minute
 * (`T09.5` is read as 09:00:00.5, not 09:30) and an offset with seconds (`+05:30:15`, which `Date.parse` cannot read).
 */
export function parseIsoTime(input: string): IsoParts | null {
  const text = input.replace(/Z/g, '+00:00')
  const date = DATE.exec(text)
  if (!date) return null
  const [y, mo, d] = [Number(date[1]), Number(date[3]), Number(date[4])]
  if (y < 1) throw new IsoRefusal('there is no year 0')
  if (mo < 1 || mo > 12) throw new IsoRefusal(`there is no month ${date[3]}`)
  if (d < 1 || d > daysIn(y, mo)) throw new IsoRefusal(`${y}-${date[3]} has no day ${date[4]}`)
  const rest = text.slice(date[0].length)
  let h = 0
  let mi = 0
  let s = 0
  let micro = 0
  let offset: number | null = null
  if (rest) {
    // A basic date (YYYYMMDD) is only followed by `T`; an extended one by any single character.
    if (!date[2] && rest[0] !== 'T') return null
    // CPython takes the sign of `2027-01-10+05:00` (or the `+` a `Z` became) as the separator: 05:00 local time.
    if (/^[+-]\d{2}:?\d{2}$/.test(rest))
      throw new IsoRefusal(
        'an offset needs a time before it (2027-01-10T00:00Z); a date alone is midnight in the profile zone'
      )
    let time = rest.slice(1)
    if (/[+-]\d{2}:?\d{2}(?::\d{2}|[.,]\d)/.test(time))
      throw new IsoRefusal('a UTC offset with seconds is not one every reader of jobs.json can read; give it as +HH:MM')
    const off = OFFSET.exec(time)
    if (off) {
      const oh = Number(off[3])
      const om = Number(off[4] ?? 0)
      if (oh > 23 || om > 59) throw new IsoRefusal(`${off[2]}${off[3]}:${off[4] ?? '00'} is not a UTC offset`)
      offset = (off[2] === '-' ? -1 : 1) * (oh * 60 + om)
      time = off[1]!
    }
    if (/^\d{2}(?::?\d{2})?[.,]\d+$/.test(time))
      throw new IsoRefusal(
        'a fraction of an hour or minute is read as a fraction of a second (09.5 is 09:00:00.5); write 09:30'
      )
    const t = TIME.exec(time)
    if (!t) return null
    ;[h, mi, s] = [Number(t[1]), Number(t[3] ?? 0), Number(t[4] ?? 0)]
    if (h > 23 || mi > 59 || s > 59)
      throw new IsoRefusal(`${time} is not a time of day (hours 00-23, minutes and seconds 00-59)`)
    micro = t[5] ? Number(t[5].slice(0, 6).padEnd(6, '0')) : 0
  }
  const wall = `${String(y).padStart(4, '0')}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}`
  return { wall, micro, offset }
}
