import { argsAreJsonObject, argsPreview } from '@shared/contract/tool-args'
import { pairResults } from '@shared/contract/tool-pairing'
import { classifyRow, mergedSummaryOf, ROW_LABELS, rowText } from '@shared/contract/notice-rows'
import { toolResultText } from '@shared/contract/tool-result-text'
import type { Message, ProfileProblem, SearchHit, SessionDetail, SessionSummary } from '@shared/contract'
import { showControls } from '@shared/contract/control-chars'

/** `YYYY-MM-DD HH:MM` (UTC); a time no Date holds (an imported `1e13`) as its number, so one row never fails the list. */
const when = (epochSeconds: number) =>
  Math.abs(epochSeconds * 1000) <= 8.64e15
    ? new Date(epochSeconds * 1000).toISOString().replace('T', ' ').slice(0, 16)
    : String(epochSeconds)
/** As the app says it: no usage at all is "—" (not a cost of $0), a price no one knows is "unpriced". */
const money = (s: SessionSummary) =>
  s.cost.status === 'none' && !s.cost.usd
    ? '—'
    : s.cost.usd === null
      ? 'unpriced'
      : `$${s.cost.usd.toFixed(4)}${s.cost.complete ? '' : '*'}`
/** "1 message", "2 messages" (the list's column says "1 msg " beside "2 msgs", keeping its width). */
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/**
 * Text others wrote (a chat message, a web page a tool fetched, a model's reply) as a terminal shows it: control
 * characters but the newline and the tab become their visible symbols (ESC as ␛), so no message can send the
 * terminal an escape sequence — recolour or hide what follows, retitle the window, write the clipboard (OSC 52).
 * C1 controls (U+0080–U+009F, 8-bit CSI among them) become U+FFFD.
 */
const terminalSafe = (text: string) => showControls(text).replace(/\r/g, '\u240d') // a page keeps the CR, a terminal obeys it

export function formatSessionList(items: SessionSummary[]): string {
  if (!items.length) return '(no sessions)'
  return terminalSafe(listLines(items))
}

function listLines(items: SessionSummary[]): string {
  return items
    .map(
      (s) =>
        `${when(s.lastActiveAt)}  ${s.profile.padEnd(10)} ${s.id.padEnd(32)} ${String(s.messageCount).padStart(5)} ${s.messageCount === 1 ? 'msg ' : 'msgs'}  ${money(s).padStart(10)}  ${(s.title ?? s.preview ?? '').slice(0, 60)}`
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

/** Lines of a result `sessions show` prints under its call; the rest is counted, not printed. */
const RESULT_LINES = 12
const RESULT_LINE_CHARS = 400

/** A result under its call: its outcome beside a `←`, then its text (cut to its head), indented. */
function resultLines(m: Message, tool: string | null, indent: string): string[] {
  const r = toolResultText(m.content ?? '', m.toolName ?? tool)
  // a line is cut too: one minified line can be the whole of a large result
  const cutLine = (l: string) => (l.length > RESULT_LINE_CHARS ? `${l.slice(0, RESULT_LINE_CHARS)}…` : l)
  const head = r.lines.slice(0, RESULT_LINES).map((l) => `${indent}  ${cutLine(l)}`.trimEnd())
  const more = r.lines.length - head.length
  return [
    `${indent}← ${r.status ?? 'result'} · ${(m.content ?? '').length.toLocaleString('en-US')} chars`,
    ...head,
    ...(more > 0 ? [`${indent}  … ${more.toLocaleString('en-US')} more lines`] : [])
  ]
}

export function formatSessionShow(detail: SessionDetail, messages: Message[]): string {
  return terminalSafe(showLines(detail, messages))
}

function showLines(detail: SessionDetail, messages: Message[]): string {
  const s = detail.summary
  const head = [
    `${s.title ?? '(untitled)'} — ${s.id} [${s.profile}]`,
    `source ${s.source} · model ${s.model ?? '?'} · ${plural(s.messageCount, 'message')} · ${money(s)}`
  ]
  // upstream stores each result as its own row naming its call: the result prints under the call, read as text
  const pairs = pairResults(messages)
  const body = messages.flatMap((m) => {
    // a notice or a compression summary: tagged as what it is, in the transcript's words (notice-rows.ts)
    const kind = classifyRow(m)
    if (kind) return [`[${ROW_LABELS[kind.kind].toLowerCase()}] ${rowText(kind, m.content).slice(0, 2000)}`]
    const tag = `${m.role}${m.toolName ? `:${m.toolName}` : ''}${m.compacted ? ' · compacted' : ''}`
    if (m.role === 'tool') {
      if (pairs.paired.has(m)) return []
      // a result whose call is not in the session: shown on its own, and said so
      return [`[${tag}] (its call is not in this session)`, ...resultLines(m, m.toolName ?? null, '  ')]
    }
    // a summary merged into a kept message: the message's words, then the summary under its own tag
    const merged = mergedSummaryOf(m)
    const text = merged ? merged.kept : (m.content ?? '')
    return [
      [
        `[${tag}] ${text.slice(0, 2000)}`,
        ...(merged ? [`[compaction summary] ${merged.summary.trim().slice(0, 2000)}`] : []),
        ...(m.toolCalls ?? []).flatMap((c) => {
          const r = pairs.resultOf(m, c.id)
          // arguments that are not a JSON object (whole on the page, not cut short): upstream never ran the call
          const invalid = c.argumentsBytes == null && !argsAreJsonObject(c.arguments)
          return [
            `  → ${c.name}(${argsPreview(c.arguments)})${invalid ? ' · arguments not valid JSON' : ''}`,
            ...(r ? resultLines(r, c.name, '    ') : [])
          ]
        })
      ].join('\n')
    ]
  })
  return [...head, '', ...body].join('\n')
}

export function formatSearch(hits: SearchHit[]): string {
  if (!hits.length) return '(no matches)'
  return terminalSafe(
    hits
      .map(
        (h) =>
          `${h.profile}/${h.sessionId}#${h.messageId} [${h.role}] ${h.snippet.map((p) => (p.hit ? `[${p.text}]` : p.text)).join('')}`
      )
      .join('\n')
  )
}
