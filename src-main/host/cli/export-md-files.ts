/**
 * Upstream's Markdown/QMD session file (`hermes sessions export --format md|qmd`), byte for byte but the export time:
 * YAML front matter, the messages (a compression lineage under one heading per segment; structured content and
 * tool calls as indented JSON blocks), and a verification trailer whose SHA-256 covers the file with the hash itself
 * written as `pending` — what upstream's verifier checks before `--delete-after-verified` deletes anything. One
 * departure: a row that is nobody's words — a notice ("### Notice", "Stopped by you …", "Background delegation …"), a
 * note to the model ("### System note"), a compression summary ("### Compaction summary"), a steer ("### Steer") —
 * is headed and read as the transcript shows it (shared/contract/notice-rows.ts), where upstream heads it with its
 * role as if the user or the model had said it (no reader parses headings).
 * Caduceus's own `--format markdown` (readable, attachments as placeholders) is session-transfer.ts's toMarkdown.
 */
import { createHash } from 'node:crypto'
import { isoUtc, pyJson, pyStr, pyTruthy, PyNumber } from '@shared/contract/py-text'
import {
  classifyStoredRow,
  foldedSummary,
  ROW_LABELS,
  rowText,
  storedMergedSummary,
  type RowKind
} from '@shared/contract/notice-rows'

type Rec = Record<string, unknown>
/** The exporter name upstream writes and its readers look for. */
const EXPORTER = 'hermes sessions export (md/qmd) v1'
const PLACEHOLDER = '__SHA256_PLACEHOLDER__'
const SHA_LINE = /- SHA256 of exported body: `([0-9a-f]{64})`/g

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
const iso = (v: unknown) => (v === null || v === undefined || v === '' ? '' : isoUtc(v)!)
const idOf = (s: Rec) => String(pyTruthy(s.id) ? s.id : pyTruthy(s.session_id) ? s.session_id : 'unknown-session')

function front(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number' || v instanceof PyNumber || Array.isArray(v)) return pyJson(v, { ensureAscii: false })
  return JSON.stringify(pyStr(v))
}

function segmentsOf(s: Rec): Rec[] {
  const segs = s.segments
  if (Array.isArray(segs) && segs.length) return segs.filter((x): x is Rec => !!x && typeof x === 'object')
  return [s]
}
const messagesOf = (s: Rec) => (Array.isArray(s.messages) ? (s.messages as Rec[]) : [])
export const messageCount = (s: Rec) => segmentsOf(s).reduce((n, seg) => n + messagesOf(seg).length, 0)

function heading(m: Rec, kind: RowKind | null): string {
  const role = String(pyTruthy(m.role) ? m.role : 'message')
  let label = kind ? ROW_LABELS[kind.kind] : role.charAt(0).toUpperCase() + role.slice(1).toLowerCase()
  const name = pyTruthy(m.name) ? m.name : m.tool_name
  if (role === 'tool' && pyTruthy(name)) label = `Tool — ${pyStr(name)}`
  const at = iso(pyTruthy(m.created_at) ? m.created_at : m.timestamp)
  return `### ${label}${at ? ` — ${at}` : ''}`
}

// json.dumps(v, ensure_ascii=False, indent=2) as upstream writes it: an integer past 2**53 to the digit, NaN and
// Infinity as Python's
const block = (v: unknown) => '```json\n' + pyJson(v, { ensureAscii: false, indent: 2 }) + '\n```'
const content = (c: unknown) => (c === null || c === undefined ? '' : typeof c === 'string' ? c.trimEnd() : block(c))

function messagesText(s: Rec): string {
  const parts = ['## Messages\n']
  const segs = segmentsOf(s)
  if (messageCount(s) === 0) parts.push('_No messages in this session._\n')
  else
    for (const seg of segs) {
      if (segs.length > 1) parts.push(`## Compression segment: ${idOf(seg)}\n`)
      for (const m of messagesOf(seg)) {
        // a notice, a note to the model or a compression summary: headed as what it is (upstream: its role)
        const kind = classifyStoredRow(m)
        parts.push(heading(m, kind) + '\n')
        // a summary merged into a kept message: the message's words, then the summary folded as the transcript does
        const merged = kind ? null : storedMergedSummary(m)
        const c = merged
          ? [merged.kept.trimEnd(), foldedSummary(merged.summary)].filter(Boolean).join('\n\n')
          : kind
            ? rowText(kind, typeof m.content === 'string' ? m.content : null)
            : content(m.content)
        if (c) parts.push(c + '\n')
        if (pyTruthy(m.tool_calls)) parts.push('\n\n## Tool calls\n\n' + block(m.tool_calls) + '\n')
        parts.push('')
      }
    }
  return parts.join('\n').trimEnd() + '\n'
}

/** The file's text; `exportedAt` in epoch seconds. */
export function render(s: Rec, fmt: 'md' | 'qmd', exportedAt = Date.now() / 1000): string {
  const id = idOf(s)
  const n = messageCount(s)
  const exported = iso(exportedAt)
  const lines: Array<[string, unknown]> = [
    ['session_id', id],
    ['title', s.title],
    ['source', s.source],
    ['created_at', iso(pyTruthy(s.started_at) ? s.started_at : s.created_at)],
    ['updated_at', iso(pyTruthy(s.last_active) ? s.last_active : s.updated_at)],
    ['ended_at', iso(s.ended_at)],
    ['model', s.model],
    ['provider', pyTruthy(s.billing_provider) ? s.billing_provider : s.provider],
    ['cwd', s.cwd],
    ['archived', pyTruthy(s.archived)],
    ['message_count', n],
    ['tool_call_count', pyTruthy(s.tool_call_count) ? s.tool_call_count : 0]
  ]
  if (pyTruthy(s.lineage_session_ids)) lines.push(['lineage_session_ids', s.lineage_session_ids])
  lines.push(['format', fmt], ['exported_at', exported], ['exporter', EXPORTER])
  const parts = [
    ['---', ...lines.map(([k, v]) => `${k}: ${front(v)}`), '---', ''].join('\n'),
    `# ${pyStr(pyTruthy(s.title) ? s.title : id)}\n`,
    `Session ID: \`${id}\`\n`
  ]
  if (pyTruthy(s.source)) parts.push(`Source: \`${pyStr(s.source)}\`\n`)
  if (pyTruthy(s.cwd)) parts.push(`Working directory: \`${pyStr(s.cwd)}\`\n`)
  parts.push(
    messagesText(s),
    '## Export verification\n',
    `- Session id: \`${id}\``,
    `- Exported messages: \`${n}\``,
    `- Source DB message count at export: \`${'message_count' in s ? pyStr(s.message_count) : n}\``,
    `- Exported at: \`${exported}\``,
    `- SHA256 of exported body: \`${PLACEHOLDER}\``
  )
  const body = parts.join('\n').trimEnd() + '\n'
  const digest = sha256(body.replaceAll(`\`${PLACEHOLDER}\``, '`pending`'))
  return body.replaceAll(PLACEHOLDER, digest)
}

/** `<id>-<title slug>.<fmt>`: the title's runs of other characters as `-`, trimmed, lower case, 60 at most. */
export function filename(s: Rec, fmt: 'md' | 'qmd'): string {
  const title = pyStr(pyTruthy(s.title) ? s.title : 'session')
  const slug = title
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    // the trailing run from its first character only (`[._-]+$` rescanned a long run from each character in it)
    .replace(/^[._-]+|(?<![._-])[._-]+$/g, '')
    .toLowerCase()
  return `${idOf(s)}-${(slug || 'session').slice(0, 60)}.${fmt}`
}

/** The manifest line upstream appends per file (keys sorted, Python's separators). */
export function manifestLine(s: Rec, path: string, fmt: 'md' | 'qmd', fileBytes: Buffer): string {
  const entry = {
    session_id: idOf(s),
    lineage_session_ids: pyTruthy(s.lineage_session_ids) ? s.lineage_session_ids : [idOf(s)],
    path,
    format: fmt,
    message_count: messageCount(s),
    sha256: sha256(fileBytes),
    exported_at: Date.now() / 1000
  }
  return pyJson(entry, { ensureAscii: false, sortKeys: true }) + '\n'
}

/** Upstream's check of a written file against the record: its hash, message count and session id. */
export function verify(text: string, s: Rec): [boolean, string] {
  const m = [...text.matchAll(SHA_LINE)][0]
  if (!m) return [false, 'sha256 marker missing']
  if (sha256(text.replace(SHA_LINE, '- SHA256 of exported body: `pending`')) !== m[1]) return [false, 'sha256 mismatch']
  if (!text.includes(`- Exported messages: \`${messageCount(s)}\``)) return [false, 'message count mismatch']
  if (!text.includes(`- Session id: \`${idOf(s)}\``)) return [false, 'session id mismatch']
  return [true, 'ok']
}
