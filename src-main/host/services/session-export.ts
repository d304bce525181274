/** Export text from the store's upstream-shaped records: JSONL (one object per line) or Markdown. Shared by CLI and requests. */
import { CaduceusError, type ExportFormat } from '@shared/contract'
import type { SessionStore } from '../../store'
import { toMarkdown } from '../../store'
import { redactDeep } from '../../secrets'
import { isoUtc, pyJson, pyStr } from './py-format'

type ExportRecord = Record<string, unknown> & { id: string; messages: Array<Record<string, unknown>> }

export interface ExportOptions {
  format: ExportFormat
  onlyUserPrompts?: boolean
  lineage?: boolean
  sessionId?: string
  /** These sessions, in this order (a filtered export); without it and `sessionId`, every session. */
  ids?: string[]
  /** Mask credentials in every message (and segment) with the log's redaction, as upstream's `--redact` does. */
  redact?: boolean
}

/** Upstream redacts the messages (and a lineage's segments), not the session row; so do we, inactive rows too. */
export function redactRecord<T extends Record<string, unknown>>(r: T): T {
  const out: Record<string, unknown> = { ...r }
  for (const k of ['messages', 'segments', 'caduceus_inactive_messages'])
    if (out[k] != null) out[k] = redactDeep(out[k])
  return out as T
}

/** Normalizes `--format` (`md` accepted); anything else is an error naming the two formats. */
export function exportFormat(v: string | undefined): ExportFormat {
  if (v === undefined || v === 'jsonl') return 'jsonl'
  if (v === 'markdown' || v === 'md') return 'markdown'
  throw new CaduceusError('invalid_input', `unknown export format '${v}': use jsonl, markdown, md or qmd`, 'format')
}

/** Export chunks, one per session (or per user prompt with onlyUserPrompts + jsonl). */
export function* exportChunks(store: SessionStore, o: ExportOptions): Generator<string> {
  if (o.sessionId && !store.getSession(o.sessionId))
    throw new CaduceusError('not_found', `No session '${o.sessionId}' in profile '${store.profile}'`, 'sessionId')
  for (const raw of store.exportSessions({ sessionId: o.sessionId, ids: o.ids, lineage: o.lineage })) {
    const rec = o.redact ? redactRecord(raw) : raw
    if (o.format === 'markdown') yield toMarkdown(rec, o.onlyUserPrompts) + '\n'
    else if (o.onlyUserPrompts) for (const p of userPrompts(rec)) yield JSON.stringify(p) + '\n'
    else yield JSON.stringify(rec) + '\n'
  }
}

export const exportMime = (f: ExportFormat) => (f === 'markdown' ? 'text/markdown' : 'application/x-ndjson')
export const exportFilename = (profile: string, o: ExportOptions) =>
  `caduceus-${profile}${o.sessionId ? `-${o.sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}` : ''}${o.onlyUserPrompts ? '-prompts' : ''}.${o.format === 'markdown' ? 'md' : 'jsonl'}`

/** Upstream's prompt text: a string as is; parts joined by newlines, each its `text`/`content`, or its JSON (an object) or Python text. */
function promptText(content: unknown): string {
  const part = (p: unknown): string => {
    if (typeof p === 'string') return p
    if (p && typeof p === 'object' && !Array.isArray(p)) {
      const o = p as Record<string, unknown>
      for (const k of ['text', 'content']) if (typeof o[k] === 'string') return o[k]
      return pyJson(o, true)
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
