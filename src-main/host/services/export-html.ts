/**
 * `sessions export --format html` and the Session page's HTML download: one self-contained page for one session or
 * for a selection (then a list of links to each session's section first). It reads as the app's transcript does —
 * each tool call folded under the message that made it with its result (shared/contract/tool-pairing.ts), notices and
 * notes to the model headed as what they are and compression summaries folded (shared/contract/notice-rows.ts),
 * attachments as placeholders (`[image: name, size]`) — and needs no script: folds are <details>, the list plain
 * links, colours follow the reader's light or dark setting. Every text from the session is escaped, and the page's
 * own policy forbids scripts and any request, so a message holding markup shows as text and loads nothing.
 */
import { partsText } from '@shared/contract'
import { pairResults, storedCalls, type StoredCall } from '@shared/contract/tool-pairing'
import { toolResultText } from '@shared/contract/tool-result-text'
import { argsAreJsonObject, argsPreview } from '@shared/contract/tool-args'
import { classifyStoredRow, ROW_LABELS, rowText, storedMergedSummary } from '@shared/contract/notice-rows'
import { EXPORT_CSS } from './export-html-style'
import { showControls } from '@shared/contract/control-chars'

type Rec = Record<string, unknown>
interface Row {
  m: Rec
  role: string
  toolCallId: string | null
  toolCalls: StoredCall[]
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
/** Text as HTML text or attribute value; a control character (a NUL, a colour sequence's ESC) as its picture. */
const esc = (s: string) => showControls(s.replace(/[&<>"']/g, (c) => ESC[c]!))

const str = (v: unknown) => (typeof v === 'string' ? v : '')
/** A message's content as text: attachments as placeholders. */
function contentText(c: unknown): string {
  if (c === null || c === undefined) return ''
  if (typeof c === 'string') return c
  if (typeof c === 'object') return partsText(Array.isArray(c) ? c : [c])
  return String(c)
}

function time(ts: unknown): string {
  const ms = Number(ts) * 1000
  if (typeof ts !== 'number' || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return ''
  const iso = new Date(ms).toISOString()
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`
}

/** Arguments that are a JSON object, indented; any other text as it was sent. */
const pretty = (raw: string) => (argsAreJsonObject(raw) ? JSON.stringify(JSON.parse(raw), null, 2) : raw)

const fold = (summary: string, body: string, cls = '') =>
  `<details${cls ? ` class="${cls}"` : ''}><summary>${summary}</summary>${body}</details>`
const textDiv = (t: string) => (t ? `<div class="text">${esc(t)}</div>` : '')

function resultHtml(m: Rec, tool: string | null): string {
  const r = toolResultText(contentText(m.content), tool)
  const status = r.status ? ` <span class="status">(${esc(r.status)})</span>` : ''
  return `<p class="label">Result${status}</p><pre>${esc(r.lines.join('\n'))}</pre>`
}

function callHtml(c: StoredCall, result: Rec | undefined): string {
  const preview = argsPreview(c.arguments)
  const status = result ? toolResultText(contentText(result.content), c.name).status : 'no result'
  const head =
    `Tool call: <code>${esc(c.name)}</code>` +
    (preview ? ` <span class="muted">${esc(preview)}</span>` : '') +
    (status ? ` <span class="status">· ${esc(status)}</span>` : '')
  const body = `<p class="label">Arguments</p><pre>${esc(pretty(c.arguments))}</pre>${result ? resultHtml(result, c.name) : ''}`
  return fold(head, body, 'tool-call')
}

function messageHtml(row: Row, level: number, resultOf: (row: Row, id: string) => Row | undefined): string {
  const m = row.m
  const h = `h${Math.min(level, 6)}`
  const at = time(m.timestamp)
  if (row.role === 'tool') {
    const tool = str(m.tool_name) || null
    const head = `<${h} class="who">Tool result · ${esc(tool ?? 'unknown')}${at}</${h}>`
    return `<li class="tool">${head}<p class="muted">Its call is not in this session.</p>${resultHtml(m, tool)}</li>`
  }
  const kind = classifyStoredRow(m)
  const label = kind
    ? ROW_LABELS[kind.kind]
    : row.role === 'user'
      ? 'User'
      : row.role === 'assistant'
        ? 'Assistant'
        : row.role
  const cls = kind ? 'note' : row.role === 'user' || row.role === 'assistant' ? row.role : 'note'
  const parts = [`<${h} class="who">${esc(label)}${at}</${h}>`]
  const text = contentText(m.content)
  const merged = kind ? null : storedMergedSummary(m)
  const summary = (s: string, label = 'Compaction summary') =>
    fold(`${label} · ${s.trim().length.toLocaleString('en-US')} chars`, textDiv(s.trim()))
  // a summary row is headed as one; its fold only says how long it is
  if (kind?.kind === 'summary') parts.push(summary(text, 'The summary'))
  else if (kind) parts.push(textDiv(rowText(kind, typeof m.content === 'string' ? m.content : text)))
  else if (merged) parts.push(textDiv(merged.kept.trim()), summary(merged.summary))
  else parts.push(textDiv(text.trim()))
  if (str(m.reasoning).trim()) parts.push(fold('Reasoning', textDiv(str(m.reasoning).trim())))
  for (const c of row.toolCalls) parts.push(callHtml(c, resultOf(row, c.id)?.m))
  return `<li class="${cls}">${parts.join('')}</li>`
}

/** One session's transcript as list items; message headings at `level`. */
function transcriptHtml(rec: Rec, level: number): string {
  const messages = (Array.isArray(rec.messages) ? rec.messages : []) as Rec[]
  const rows: Row[] = messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({ m, role: String(m.role), toolCallId: str(m.tool_call_id) || null, toolCalls: storedCalls(m) }))
  const pairs = pairResults(rows)
  const items = rows.filter((r) => !pairs.paired.has(r)).map((r) => messageHtml(r, level, pairs.resultOf))
  return items.length ? `<ol class="transcript">${items.join('')}</ol>` : '<p class="muted">No messages.</p>'
}

const titleOf = (rec: Rec) => str(rec.title) || `Session ${String(rec.id)}`

function factsHtml(rec: Rec): string {
  const facts: Array<[string, string]> = [
    ['Session', `<code>${esc(String(rec.id))}</code>`],
    ['Source', esc(str(rec.source) || 'unknown')]
  ]
  if (str(rec.model)) facts.push(['Model', esc(str(rec.model))])
  const started = time(rec.started_at)
  if (started) facts.push(['Started', started])
  const ended = time(rec.ended_at)
  if (ended) facts.push(['Ended', ended])
  if (str(rec.cwd)) facts.push(['Folder', `<code>${esc(str(rec.cwd))}</code>`])
  const n = Array.isArray(rec.messages) ? rec.messages.length : 0
  facts.push(['Messages', String(n)])
  if (Array.isArray(rec.lineage_session_ids) && rec.lineage_session_ids.length > 1)
    facts.push(['Compression chain', esc(rec.lineage_session_ids.map(String).join(' → '))])
  return `<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`
}

function page(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">`,
    '<meta name="generator" content="Caduceus">',
    `<title>${esc(title)}</title>`,
    `<style>${EXPORT_CSS}</style>`,
    '</head>',
    `<body>${body}</body>`,
    '</html>',
    ''
  ].join('\n')
}

/** The page for these export records: one session's alone, several with a list of links to each first. */
export function exportHtml(records: readonly Rec[], exportedAt = new Date()): string {
  const when = `Exported ${exportedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by Caduceus`
  if (records.length === 1) {
    const rec = records[0]!
    const body = `<main><h1>${esc(titleOf(rec))}</h1><p class="muted">${when}</p>${factsHtml(rec)}${transcriptHtml(rec, 2)}</main>`
    return page(titleOf(rec), body)
  }
  const title = `${records.length} session${records.length === 1 ? '' : 's'}`
  const links = records.map(
    (r, i) =>
      `<li><a href="#session-${i + 1}">${esc(titleOf(r))}</a> <span class="muted">· ${esc(str(r.source) || 'unknown')}</span></li>`
  )
  const sections = records.map(
    (r, i) =>
      `<section id="session-${i + 1}" aria-labelledby="session-${i + 1}-title"><h2 class="session-title" id="session-${i + 1}-title">${esc(titleOf(r))}</h2>${factsHtml(r)}${transcriptHtml(r, 3)}</section>`
  )
  const nav = records.length ? `<nav class="sessions" aria-label="Sessions"><ol>${links.join('')}</ol></nav>` : ''
  const body =
    `<header class="site"><h1>${title}</h1><p class="muted">${when}</p></header>${nav}` +
    `<main>${sections.join('') || '<p class="muted">No sessions.</p>'}</main>`
  return page(title, body)
}
