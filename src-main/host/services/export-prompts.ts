/**
 * `--only user-prompts`, as upstream writes it: one record per user prompt (JSONL), or the prompts as Markdown under
 * each session's heading and details (`--format md`).
 */
import { isoUtc, pyJson, pyStr } from '@shared/contract/py-text'

type Rec = Record<string, unknown>
type ExportRecord = Rec & { id: string; messages: Rec[] }

/** Upstream's prompt text: a string as is; parts joined by newlines, each its `text`/`content`, or its JSON (an object) or Python text. */
function promptText(content: unknown): string {
  const part = (p: unknown): string => {
    if (typeof p === 'string') return p
    if (p && typeof p === 'object' && !Array.isArray(p)) {
      const o = p as Record<string, unknown>
      for (const k of ['text', 'content']) if (typeof o[k] === 'string') return o[k]
      return pyJson(o, { ensureAscii: false, sortKeys: true })
    }
    return pyStr(p)
  }
  if (content == null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map(part).filter(Boolean).join('\n')
  return part(content)
}

/**
 * `only = user-prompts`: one record per user prompt, upstream's (`iter_user_prompt_records`): session id, its
 * 1-based index among the session's prompts, the time (ISO, seconds, UTC), the text — an attachment part as its
 * JSON, as upstream writes it, so nothing is lost — the message id and the platform's event id when there is one.
 */
export function userPrompts(r: ExportRecord): Array<Record<string, unknown>> {
  return r.messages
    .filter((m) => m.role === 'user')
    .map((m, i) => ({
      session_id: r.id,
      index: i + 1,
      created_at: isoUtc(m.timestamp, true),
      role: 'user',
      text: promptText(m.content),
      ...(m.id != null ? { message_id: m.id } : {}),
      ...(m.platform_message_id || m.event_id ? { event_id: m.platform_message_id || m.event_id } : {})
    }))
}

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/
const oneLine = (v: string) => v.split(LINE_BREAK).join(' ').trim()
const sessionIdOf = (s: Rec) => pyStr(s.id || s.session_id || 'unknown')

function details(s: Rec): string[] {
  const out = [`- Session ID: \`${sessionIdOf(s)}\``]
  if (s.source) out.push(`- Source: \`${pyStr(s.source)}\``)
  if (s.model) out.push(`- Model: \`${pyStr(s.model)}\``)
  if (s.title) out.push(`- Title: ${oneLine(pyStr(s.title))}`)
  const started = isoUtc(s.started_at, true)
  if (started) out.push(`- Started: ${started}`)
  if (s.message_count != null) out.push(`- Messages: ${pyStr(s.message_count)}`)
  return out
}

/** The user prompts as Markdown: one session under `#`, several under `##` each; numbered prompts with their time. */
export function promptsMarkdown(sessions: ExportRecord[]): string {
  const lines: string[] = []
  const prompts = (s: ExportRecord, level: number) => {
    const ps = userPrompts(s)
    if (!ps.length) lines.push('_No user prompts found._', '')
    for (const p of ps) {
      lines.push(`${'#'.repeat(level)} ${String(p.index)}. ${String(p.created_at || 'timestamp unavailable')}`)
      if (p.message_id != null) lines.push(`Message ID: \`${pyStr(p.message_id)}\``, '')
      lines.push(String(p.text || ''), '')
    }
  }
  if (sessions.length === 1) {
    lines.push(
      `# User prompts for session ${oneLine(sessionIdOf(sessions[0]!)) || 'unknown'}`,
      ...details(sessions[0]!),
      ''
    )
    prompts(sessions[0]!, 2)
  } else {
    lines.push('# User prompts export', '')
    for (const s of sessions) {
      lines.push(`## Session ${oneLine(sessionIdOf(s)) || 'unknown'}`, ...details(s), '')
      prompts(s, 3)
    }
    if (!sessions.length) lines.push('_No user prompts found._', '')
  }
  while (lines.at(-1) === '') lines.pop()
  return lines.join('\n') + '\n'
}
