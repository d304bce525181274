import { argsPreview } from '@shared/contract/tool-args'
import type { Message, SearchHit, SessionDetail, SessionSummary } from '@shared/contract'

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
