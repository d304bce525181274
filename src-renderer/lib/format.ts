import type { CacheDecision, Money, Tokens } from '@shared/contract'

/**
 * Money is never silently $0 (invariant 5): null or unpriced reads "unpriced"; `none` (no usage at all) reads "—".
 * Amounts below a cent still show as a non-zero figure.
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return '—'
  // a credit or a hand-edited row: the sign goes before the currency ("-$1.50", never "$-1.50")
  if (usd < 0) return `-${formatUsd(-usd)}`
  if (usd > 0 && usd < 0.005) return '<$0.01'
  return `$${(toCents(usd) / 100).toFixed(2)}`
}

/**
 * Whole cents, half away from zero, free of binary noise: $0.085 is 8.4999… cents as a double and read $0.08
 * beside rows of $0.05 and $0.04.
 */
export function toCents(usd: number): number {
  const c = Number((Math.abs(usd) * 100).toPrecision(12))
  return Math.sign(usd) * Math.round(c)
}

export function formatMoney(m: Money | null | undefined): string {
  if (!m) return '—'
  if (m.status === 'none') return m.usd ? formatUsd(m.usd) : '—'
  if (m.usd == null || m.status === 'unpriced') return 'unpriced'
  return formatUsd(m.usd)
}

/** Extra qualifier shown beside an amount. */
export function moneyQualifier(m: Money | null | undefined): 'partial' | null {
  if (!m) return null
  return m.status === 'partial' || (m.usd != null && !m.complete && m.status !== 'unpriced' && m.status !== 'none')
    ? 'partial'
    : null
}

/** Status label for totals: says "complete" only when every part is priced. */
export function moneyStatusLabel(m: Money): string {
  if (m.status === 'none') return 'no usage'
  const base = m.status === 'unpriced' ? 'unpriced' : m.status === 'partial' ? 'partial' : m.status
  return m.complete && m.status !== 'unpriced' ? `${base} · complete` : base
}

const UNITS: Array<[number, string]> = [
  [60, 's'],
  [60, 'm'],
  [24, 'h'],
  [7, 'd'],
  [4.345, 'w'],
  [12, 'mo'],
  [Infinity, 'y']
]

/** Compact relative time from epoch seconds: "now", "5m ago", "3d ago", "in 2h". */
export function relativeTime(epochSeconds: number | null | undefined, nowMs = Date.now()): string {
  if (epochSeconds == null || !Number.isFinite(epochSeconds)) return '—'
  let delta = nowMs / 1000 - epochSeconds
  const future = delta < 0
  delta = Math.abs(delta)
  if (delta < 30) return 'now'
  let value = delta
  for (const [size, unit] of UNITS) {
    if (value < size) {
      const n = Math.floor(value)
      return future ? `in ${n}${unit}` : `${n}${unit} ago`
    }
    value /= size
  }
  return '—'
}

/** Countdown like "5h 12m" / "3m 04s" to an epoch-seconds deadline; "expired" once past. */
export function countdown(epochSeconds: number | null, nowMs = Date.now()): string {
  if (epochSeconds == null) return '—'
  const s = Math.floor(epochSeconds - nowMs / 1000)
  if (s <= 0) return 'expired'
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60),
    sec = s % 60
  if (h >= 24) return `${Math.floor(h / 24)}d ${h % 24}h`
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`
  return `${m}m ${String(sec).padStart(2, '0')}s`
}

export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '—'
  if (Math.abs(n) < 1000) return String(Math.round(n))
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** A count with its noun as a person says it: "1 tool call", "2 tool calls", "0 messages". */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

export function totalTokens(t: Tokens): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite
}

// toLocale*String(…, options) builds a new Intl.DateTimeFormat on every call (~0.1 ms): a transcript formats
// two dates per row, so keep one formatter per style (the locale is fixed for the page's life).
const dateTimeFmt = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric'
})
const clockFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dayFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })
const dayYearFmt = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' })

export function formatDateTime(epochSeconds: number | null | undefined): string {
  if (epochSeconds == null) return '—'
  const d = new Date(epochSeconds * 1000)
  return Number.isNaN(d.getTime()) ? '—' : dateTimeFmt.format(d)
}

/** The per-turn badge text; exact strings are part of the UI contract (e2e asserts them). */
export function cacheDecisionLabel(d: CacheDecision, reason?: string | null): string {
  // The host's own words for what changed (e.g. a memory provider's identity) beat the generic label.
  if (reason && d !== 'reused') return `fresh agent: ${reason}`
  switch (d) {
    case 'reused':
      return 'reused'
    case 'new':
      return 'fresh agent: first turn here'
    case 'config_changed':
      return 'fresh agent: settings changed'
    case 'external_write':
      return 'fresh agent: changed elsewhere'
    case 'session_changed':
      return 'fresh agent: session changed'
  }
}

/** The longer "why" behind a cache decision, for the badge's tooltip. */
export function cacheDecisionHelp(d: CacheDecision): string {
  switch (d) {
    case 'reused':
      return 'The agent from the previous turn was kept warm and reused (its prompt cache too).'
    case 'new':
      return 'No agent was running for this session yet, so a new one was started.'
    case 'config_changed':
      return 'The model or provider settings changed since the last turn, so the agent was started again with them.'
    case 'external_write':
      return 'Another program wrote to this session since the last turn, so the agent was started again from the saved transcript.'
    case 'session_changed':
      return 'The conversation continued in another session (e.g. after compression), so a new agent was started for it.'
  }
}

/** Child-cost statuses in words: "unledgered" means the delegation ledger had no row, so the child's own session cost is used. */
export function childStatusLabel(status: string | null): string {
  if (status === 'unledgered') return 'from child session (not in ledger)'
  return status ?? '—'
}

export function shortId(id: string, n = 8): string {
  return id.length > n + 2 ? `${id.slice(0, n)}…` : id
}

/** The contract's one helper (pages and stores import it from here). */
export { errorMessage } from '@shared/contract/errors'

/** A message's time: clock time today, date and time on other days (transcripts often span days). */
export function messageTime(epochSeconds: number, nowMs = Date.now()): string {
  const d = new Date(epochSeconds * 1000)
  if (Number.isNaN(d.getTime())) return ''
  const time = clockFmt.format(d)
  const now = new Date(nowMs)
  if (d.toDateString() === now.toDateString()) return time
  const sameYear = d.getFullYear() === now.getFullYear()
  return `${(sameYear ? dayFmt : dayYearFmt).format(d)} ${time}`
}

/** "0.4 s", "12 s", "2 min 5 s": a run time as the stored timestamps give it. */
export function durationLabel(s: number): string {
  if (s < 10) return `${s.toFixed(1)} s`
  if (s < 60) return `${Math.round(s)} s`
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
}
