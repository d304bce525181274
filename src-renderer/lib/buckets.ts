/**
 * Bars for a long period: a chart of one bar per day stays readable for a few months; past that each bar is a week
 * (Monday to Sunday), and past two years a month. A bucket is named by its first day (YYYY-MM-DD), so rows keep the
 * shape the charts and tables already read (`day`), and a bucket's last day is known for drilling into it.
 */
export type Bucket = 'day' | 'week' | 'month'

/** Longest span (first to last day with usage) still shown a day a bar, then a week a bar. */
const DAY_BARS_UP_TO = 120
const WEEK_BARS_UP_TO = 730

const utc = (day: string) => Date.parse(`${day}T00:00:00Z`)
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const DAY_MS = 86_400_000

/** The bar size for days spanning `first` to `last` (days, YYYY-MM-DD). */
export function bucketFor(days: readonly string[]): Bucket {
  if (days.length < 2) return 'day'
  let first = days[0]!
  let last = first
  for (const d of days) {
    if (d < first) first = d
    if (d > last) last = d
  }
  const span = (utc(last) - utc(first)) / DAY_MS
  return span <= DAY_BARS_UP_TO ? 'day' : span <= WEEK_BARS_UP_TO ? 'week' : 'month'
}

/** The first day of the bucket `day` falls in. */
export function bucketStart(day: string, b: Bucket): string {
  if (b === 'day') return day
  if (b === 'month') return `${day.slice(0, 7)}-01`
  const t = utc(day)
  const sinceMonday = (new Date(t).getUTCDay() + 6) % 7
  return iso(t - sinceMonday * DAY_MS)
}

/** The last day of the bucket that starts on `start`. */
export function bucketEnd(start: string, b: Bucket): string {
  if (b === 'day') return start
  if (b === 'week') return iso(utc(start) + 6 * DAY_MS)
  const d = new Date(utc(start))
  return iso(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0))
}

/** A bucket's name on an axis or in a table: "Nov 3", "Nov 3, 25" (the week starting then), "Nov 2025". */
export function bucketLabel(start: string, b: Bucket): string {
  const d = new Date(`${start}T12:00:00`)
  if (Number.isNaN(d.getTime())) return start
  if (b === 'month') return d.toLocaleDateString(undefined, { month: 'short', year: 'numeric' })
  if (b === 'week') return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: '2-digit' })
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}

/** What one bar is, in words: "day", "week", "month". */
export const BUCKET_NOUN: Record<Bucket, string> = { day: 'day', week: 'week', month: 'month' }
