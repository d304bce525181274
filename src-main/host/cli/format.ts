import { argsPreview } from '@shared/contract/tool-args'
import type { Message, ProfileProblem, SearchHit, SessionDetail, SessionSummary } from '@shared/contract'

/** `YYYY-MM-DD HH:MM` (UTC); a time no Date holds (an imported `1e13`) as its number, so one row never fails the list. */
const when = (epochSeconds: number) =>
  Math.abs(epochSeconds * 1000) <= 8.64e15
    ? new Date(epochSeconds * 1000).toISOString().replace('T', ' ').slice(0, 16)
    : String(epochSeconds)
const money = (s: SessionSummary) =>
  s.cost.usd === null ? 'unpriced' : `$${s.cost.usd.toFixed(4)}${s.cost.complete ? '' : '*'}`

export function formatSessionList(items: SessionSummary[]): string {
  if (!items.length) return '(no sessions)'
  return items
    .map(
      (s) =>
        `${when(s.lastActiveAt)}  ${s.profile.padEnd(10)} ${s.id.padEnd(32)} ${String(s.messageCount).padStart(5)} msgs  ${money(s).padStart(10)}  ${(s.title ?? s.preview ?? '').slice(0, 60)}`
    )
    .join('\n')
}

/**
 * What a cross-profile answer could not include, for stderr: each profile that could not be read (a damaged or
 * unreadable state.db) and each one served with a notice (a newer schema). Text output lists only sessions, so
 * without these lines an unreadable profile's sessions would silently be missing — "(no sessions)" when none opened.
 */
export function formatProblems(r: { unavailable?: ProfileProblem[]; notices?: ProfileProblem[] }): string[] {
  return [
    ...(r.unavailable ?? []).map((p) => `caduceus: profile ${p.profile} could not be read, left out: ${p.reason}`),
    ...(r.notices ?? []).map((p) => `caduceus: profile ${p.profile}: ${p.reason}`)
  ]
}

export function formatSessionShow(detail: SessionDetail, messages: Message[]): string {
  const s = detail.summary
  const head = [
    `${s.title ?? '(untitled)'} — ${s.id} [${s.profile}]`,
    `source ${s.source} · model ${s.model ?? '?'} · ${s.messageCount} messages · ${money(s)}`
  ]
  // a call on a line of its own under its message, its arguments as the transcript's call row reads them
  const body = messages.map((m) =>
    [
      `[${m.role}${m.toolName ? `:${m.toolName}` : ''}${m.compacted ? ' · compacted' : ''}] ${(m.content ?? '').slice(0, 2000)}`,
      ...(m.toolCalls ?? []).map((c) => `  → ${c.name}(${argsPreview(c.arguments)})`)
    ].join('\n')
  )
  return [...head, '', ...body].join('\n')
}

export function formatSearch(hits: SearchHit[]): string {
  if (!hits.length) return '(no matches)'
  return hits
    .map(
      (h) =>
        `${h.profile}/${h.sessionId}#${h.messageId} [${h.role}] ${h.snippet.map((p) => (p.hit ? `[${p.text}]` : p.text)).join('')}`
    )
    .join('\n')
}
