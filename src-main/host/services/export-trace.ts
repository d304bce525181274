/**
 * `sessions export --format trace`: one session as a Claude Code JSONL transcript, the shape the Hugging Face Agent
 * Trace Viewer recognises, built from the session's export record (golden: scripts/golden/export_trace.py, upstream's
 * exporter on a home upstream wrote). Each message but the system prompt is one line: an assistant row a `type:
 * "assistant"` record whose content is its text and one `tool_use` block per call; a tool row a user record holding one
 * `tool_result` keyed by the call's id; any other row a user record. Each record names the one before it
 * (`parentUuid`), so the viewer reads one linear thread. Text is written as it is stored; the caller redacts the record
 * first (on by default for this format).
 *
 * Where this differs from upstream's, on purpose: each record carries its message's own time (upstream stamps every
 * record with the export time), `cwd` and `gitBranch` are the session's (upstream: the exporting shell's directory
 * and no branch), and an attachment of any kind is a placeholder such as `[audio omitted]`, also when it is a
 * message's only part (upstream keeps a placeholder for images in a list and writes every other part, base64 data
 * included, as JSON text).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { parseJsonOr } from '@shared/contract/errors'
import { pyJson, pyStr, pyStrip } from '@shared/contract/py-text'

type Rec = Record<string, unknown>
type Block = Rec

/** What the viewer shows as the producing tool's version. */
const VERSION = 'caduceus'
const MEDIA: Record<string, string> = {
  image: 'image',
  image_url: 'image',
  input_image: 'image',
  input_audio: 'audio',
  audio: 'audio',
  file: 'file',
  input_file: 'file'
}

const text = (t: unknown): Block => ({ type: 'text', text: t })

function partBlock(part: unknown): Block {
  if (!part || typeof part !== 'object' || Array.isArray(part)) return text(pyStr(part))
  const p = part as Rec
  if (p.type === 'text') return text(p.text ?? '')
  const media = typeof p.type === 'string' ? MEDIA[p.type] : undefined
  return text(media ? `[${media} omitted]` : pyJson(p))
}

/** A message's content as content blocks: text as it is, every attachment as a placeholder. */
function blocksOf(content: unknown): Block[] {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return [text(content)]
  if (Array.isArray(content)) return content.map(partBlock)
  if (typeof content === 'object') return [partBlock(content)]
  return [text(pyJson(content))]
}

function toolUses(calls: unknown): Block[] {
  if (!Array.isArray(calls)) return []
  return calls.flatMap((c: unknown) => {
    if (!c || typeof c !== 'object') return []
    const call = c as Rec
    const fn = (call.function && typeof call.function === 'object' ? call.function : {}) as Rec
    const raw = fn.arguments
    let input: unknown = {}
    // arguments that are no JSON are kept whole under `_raw`, as upstream keeps them
    if (typeof raw === 'string') input = raw.trim() ? parseJsonOr(raw, { _raw: raw }) : {}
    else if (raw && typeof raw === 'object' && !Array.isArray(raw)) input = raw
    const id = typeof call.id === 'string' && call.id ? call.id : `toolu_${randomBytes(8).toString('hex')}`
    return [{ type: 'tool_use', id, name: fn.name || call.name || 'tool', input }]
  })
}

/** Epoch seconds as the ISO time Claude Code writes (milliseconds, `Z`); the export time for a row without one. */
function isoMs(ts: unknown, fallback: string): string {
  const ms = Number(ts) * 1000
  return typeof ts === 'number' && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? new Date(ms).toISOString()
    : fallback
}

/** A user's or the model's words without the whitespace around them (Python's strip, as upstream reads them). */
const trimmed = (m: Rec) =>
  typeof m.content === 'string' && (m.role === 'user' || m.role === 'assistant') ? pyStrip(m.content) : m.content

/** The trace's JSONL text for one export record; '' when it holds no message a trace shows. */
export function traceJsonl(rec: Rec): string {
  const messages = Array.isArray(rec.messages) ? (rec.messages as Rec[]) : []
  const now = new Date().toISOString()
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const model = str(rec.model) || 'unknown'
  let parent: string | null = null
  const lines: string[] = []
  for (const m of messages) {
    if (m.role === 'system') continue
    const uuid = randomUUID()
    const content = trimmed(m)
    let type = 'user'
    let message: Rec
    if (m.role === 'assistant') {
      type = 'assistant'
      const blocks = [...blocksOf(content), ...toolUses(m.tool_calls)]
      message = { role: 'assistant', model, content: blocks.length ? blocks : [text('')] }
    } else if (m.role === 'tool') {
      const id = str(m.tool_call_id) || str(m.tool_name) || 'tool'
      const result = typeof content === 'string' ? content : pyJson(content ?? null)
      message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] }
    } else message = { role: 'user', content: typeof content === 'string' ? content : blocksOf(content) }
    const record = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: str(rec.cwd),
      sessionId: String(rec.id),
      version: VERSION,
      gitBranch: str(rec.git_branch),
      uuid,
      timestamp: isoMs(m.timestamp, now),
      type,
      message
    }
    lines.push(JSON.stringify(record))
    parent = uuid
  }
  return lines.length ? lines.join('\n') + '\n' : ''
}
