/**
 * Export text from the store's upstream-shaped records: JSONL (one object per line), Markdown, or one HTML page for
 * the whole selection (export-html.ts). Shared by CLI and requests.
 */
import { CaduceusError, maskUrlCredentials, type ExportFormat } from '@shared/contract'
import { pyJson } from '@shared/contract/py-text'
import type { SessionStore } from '../../store'
import { toMarkdown } from '../../store'
import { redactForExport, type SecretMask } from '../../secrets'
import { promptsMarkdown, userPrompts } from './export-prompts'
import { exportHtml } from './export-html'

/** What exportChunks writes: the contract's formats, and a page (`html`) for one session or a selection. */
export type ChunkFormat = ExportFormat | 'html'

export interface ExportOptions {
  format: ChunkFormat
  onlyUserPrompts?: boolean
  lineage?: boolean
  sessionId?: string
  /** These sessions, in this order (a filtered export); without it and `sessionId`, every session. */
  ids?: string[]
  /**
   * Mask credentials in every message (and segment) as upstream's `--redact` does (secrets/export-redact.ts), and the
   * secret values this mask (the exporting host's) holds.
   */
  redact?: SecretMask | null
  /** Counted while exporting: sessions written and user prompts among them (the CLI's "Exported N …"). */
  tally?: { sessions: number; prompts: number }
  /**
   * `html`: the records go here and no page is written — a selection across profiles gathers every profile's
   * records, then writes one page of them (`exportHtml`).
   */
  gather?: Array<Record<string, unknown>>
}

/**
 * Upstream redacts the messages (and a lineage's segments), not the session row, with its own masking (not the
 * log's); so do we, inactive rows too.
 */
export function redactRecord<T extends Record<string, unknown>>(r: T, mask: SecretMask): T {
  const out: Record<string, unknown> = { ...r }
  for (const k of ['messages', 'segments', 'caduceus_inactive_messages'])
    if (out[k] != null) out[k] = redactForExport(out[k], mask)
  return out as T
}

/**
 * The session row's (and its segments') endpoint with its password masked, redaction asked for or not: upstream
 * writes the base URL as its agent had it (`user:password@` included), but an export is for sharing and the column
 * only attributes billing.
 */
function withoutUrlPassword<T extends Record<string, unknown>>(r: T): T {
  const url = r.billing_base_url
  let out: Record<string, unknown> = r
  if (typeof url === 'string' && maskUrlCredentials(url) !== url)
    out = { ...r, billing_base_url: maskUrlCredentials(url) }
  // A lineage's segments are session rows too.
  if (Array.isArray(r.segments))
    out = {
      ...out,
      segments: r.segments.map((seg) => (seg && typeof seg === 'object' ? withoutUrlPassword(seg) : seg))
    }
  return out as T
}

/** A JSONL line as upstream's export writes it: `json.dumps(record, ensure_ascii=False)`, default separators. */
const line = (v: unknown) => pyJson(v, { ensureAscii: false }) + '\n'

/** Normalizes `--format` (`md` accepted); anything else is an error naming the formats. */
export function exportFormat(v: string | undefined): ChunkFormat {
  if (v === undefined || v === 'jsonl') return 'jsonl'
  if (v === 'markdown' || v === 'md') return 'markdown'
  if (v === 'html') return 'html'
  throw new CaduceusError(
    'invalid_input',
    `unknown export format '${v}': use jsonl, markdown, md, qmd, html or trace`,
    'format'
  )
}

/**
 * Export chunks, one per session (or per user prompt with onlyUserPrompts + jsonl); the user prompts as Markdown
 * (upstream's `--only user-prompts --format md`) are one text, its heading depending on how many sessions there are,
 * and an HTML export is one page for every session selected.
 */
export function* exportChunks(store: SessionStore, o: ExportOptions): Generator<string> {
  if (o.sessionId && !store.getSession(o.sessionId))
    throw new CaduceusError('not_found', `No session '${o.sessionId}' in profile '${store.profile}'`, 'sessionId')
  if (o.format === 'html' && o.onlyUserPrompts)
    throw new CaduceusError('invalid_input', 'user prompts export as jsonl or markdown, not html', 'format')
  const tally = o.tally ?? { sessions: 0, prompts: 0 }
  const held: Array<Record<string, unknown> & { id: string; messages: Array<Record<string, unknown>> }> = []
  const floats = o.format === 'jsonl'
  for (const raw of store.exportSessions({ sessionId: o.sessionId, ids: o.ids, lineage: o.lineage, floats })) {
    const rec = withoutUrlPassword(o.redact ? redactRecord(raw, o.redact) : raw)
    const prompts = o.onlyUserPrompts ? userPrompts(rec) : []
    tally.sessions++
    tally.prompts += prompts.length
    if (o.format === 'html' || (o.format === 'markdown' && o.onlyUserPrompts)) held.push(rec)
    else if (o.format === 'markdown') yield toMarkdown(rec) + '\n'
    else if (o.onlyUserPrompts) for (const p of prompts) yield line(p)
    else yield line(rec)
  }
  if (o.format === 'markdown' && o.onlyUserPrompts) yield promptsMarkdown(held)
  if (o.format === 'html') {
    if (o.gather) o.gather.push(...held)
    else yield exportHtml(held)
  }
}

const MIME = { jsonl: 'application/x-ndjson', markdown: 'text/markdown', html: 'text/html' } as const
const EXTENSION = { jsonl: 'jsonl', markdown: 'md', html: 'html' } as const
export const exportMime = (f: ChunkFormat) => MIME[f]
export const exportFilename = (profile: string, o: ExportOptions) =>
  `caduceus-${profile}${o.sessionId ? `-${o.sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}` : ''}${o.onlyUserPrompts ? '-prompts' : ''}.${EXTENSION[o.format]}`
