/**
 * Comparing an HTTP answer with one of upstream's golden exchanges (test/fixtures/upstream/api-server-http, written
 * by scripts/golden/api_server_http.py): the same normalisation of ids and timestamps, then every key and value
 * upstream sends (Caduceus may add keys), SSE streams lined up frame by frame, and the headers that matter.
 */
import { request } from 'node:http'

export interface GoldenCase {
  name: string
  request: { method: string; path: string; headers: Record<string, string>; body: unknown }
  status: number
  headers: Record<string, string>
  present: Record<string, boolean>
  /** Sent while a slow turn held the only slot (gateway.api_server.max_concurrent_runs: 1). */
  capped?: boolean
  /** The answer's X-Hermes-Session-Id is the one the request sent. */
  sessionEchoed: boolean
  /** A run whose status names the session this earlier case's answer was recorded in. */
  sameSessionAs?: string | null
  /** Chained (previous_response_id, a conversation name): answered in the session of this earlier case. */
  sameSessionHeaderAs?: string | null
  /** What upstream handed its (scripted) agent: the caller's system text, the history's text turns, the user text. */
  agent?: { system: string | null; history: Array<[string, string]>; user: string | null; memoryKey?: string }
  cors: Record<string, string>
  security: Record<string, string>
  json?: unknown
  sse?: Frame[]
  text?: string
}
interface Frame {
  event?: string
  data?: unknown
  comment?: string
}
export interface Golden {
  upstreamCommit: string
  key: string
  reply: string
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
  cases: GoldenCase[]
}

// Values that differ by nature and are compared by type only (version numbers, previews, sequence numbers, the ids of
// sessions each side mints; upstream's run session is the run id).
const TYPE_ONLY = new Set([
  'version',
  'label',
  'emoji',
  'preview',
  'description',
  'session_id',
  'sequence_number',
  'last_event'
])

/** Upstream-shaped ids and timestamps → the placeholders the golden script writes (its norm()). */
const ID_PATTERNS: Array<[RegExp, string]> = [
  [/^chatcmpl-[0-9a-zA-Z]+$/, '<id:chatcmpl>'],
  [/^resp_[0-9a-zA-Z]+$/, '<id:resp>'],
  [/^msg_[0-9a-zA-Z]+$/, '<id:msg>'],
  [/^run_[0-9a-zA-Z]+$/, '<id:run>'],
  [/^fc_[0-9a-zA-Z]+$/, '<id:fc>'],
  [/^fco_[0-9a-zA-Z]+$/, '<id:fco>']
]
const TIME_KEYS = new Set([
  'created',
  'created_at',
  'updated_at',
  'timestamp',
  'completed_at',
  'started_at',
  'duration'
])

export function norm(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => norm(v, key))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, norm(v, k)]))
  if (key && TIME_KEYS.has(key) && typeof value === 'number') return '<time>'
  if (typeof value === 'string') {
    for (const [re, ph] of ID_PATTERNS) if (re.test(value)) return ph
    return value.replace(/(resp|run|chatcmpl)[_-][0-9a-f]{12,}/g, (_m, p: string) => `<id:${p}>`)
  }
  return value
}

/**
 * Every key upstream sends, with its value: exact, except TYPE_ONLY keys (same JSON type). Caduceus may send more keys.
 * A `code` upstream leaves null may be a string here (more specific; a client cannot rely on null).
 */
function conform(want: unknown, got: unknown, path: string, out: string[], key?: string): void {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
  if (key && TYPE_ONLY.has(key)) {
    if (kind(want) !== kind(got)) out.push(`${path}: ${kind(got)} where upstream has ${kind(want)}`)
    return
  }
  if (key === 'code' && want === null && typeof got === 'string') return
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return void out.push(`${path}: ${JSON.stringify(got)} where upstream has an array`)
    if (got.length !== want.length) out.push(`${path}: ${got.length} items where upstream has ${want.length}`)
    want.forEach((w, i) => conform(w, got[i], `${path}[${i}]`, out, key))
    return
  }
  if (want && typeof want === 'object') {
    if (!got || typeof got !== 'object' || Array.isArray(got))
      return void out.push(`${path}: ${JSON.stringify(got)} where upstream has an object`)
    for (const [k, w] of Object.entries(want)) {
      if (!(k in got)) out.push(`${path}.${k}: missing (upstream: ${JSON.stringify(w)})`)
      else conform(w, (got as Record<string, unknown>)[k], `${path}.${k}`, out, k)
    }
    return
  }
  if (want !== got) out.push(`${path}: ${JSON.stringify(got)} where upstream has ${JSON.stringify(want)}`)
}

function parseSse(text: string): Frame[] {
  const frames: Frame[] = []
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    if (!block.trim()) continue
    const frame: Frame = {}
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frames.push({ comment: line.slice(1).trim() })
      else if (line.startsWith('event:')) frame.event = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
    }
    if (data.length) {
      const raw = data.join('\n')
      try {
        frame.data = norm(JSON.parse(raw))
      } catch {
        frame.data = raw
      }
      frames.push(frame)
    }
  }
  return frames
}

/** What a frame is, for lining up the two streams: the SSE event, the chunk's role/content/finish, the run event. */
function kindOf(f: Frame): string {
  if (f.comment !== undefined) return `:${f.comment}`
  const d = f.data as Record<string, any> | string
  if (typeof d === 'string') return d
  if (f.event && f.event !== 'message') return f.event
  if (d.object === 'chat.completion.chunk') {
    const c = d.choices?.[0]
    if (!c) return 'chunk:usage'
    if (c.finish_reason) return 'chunk:finish'
    if (c.delta?.role) return 'chunk:role'
    return 'chunk:content'
  }
  return String(d.type ?? d.event ?? 'data')
}

/** Consecutive text pieces as one (each side splits a reply where its streaming happens to). */
function mergeText(frames: Frame[]): Frame[] {
  const out: Frame[] = []
  for (const f of frames) {
    const prev = out.at(-1)
    const k = kindOf(f)
    if (prev && kindOf(prev) === k && ['chunk:content', 'response.output_text.delta', 'message.delta'].includes(k)) {
      const p = structuredClone(prev.data) as Record<string, any>
      const d = f.data as Record<string, any>
      if (k === 'chunk:content') p.choices[0].delta.content += d.choices[0].delta.content
      else p.delta += d.delta
      out[out.length - 1] = { ...prev, data: p }
    } else out.push(f)
  }
  return out
}

/** Upstream's frames in order, each matched by kind; Caduceus's frames of kinds upstream never sends are extra. */
function compareSse(want: Frame[], got: Frame[], out: string[]): void {
  const kinds = new Set(want.map(kindOf))
  const w = mergeText(want.filter((f) => f.comment !== 'keepalive'))
  const g = mergeText(got.filter((f) => f.comment !== 'keepalive' && kinds.has(kindOf(f))))
  const names = (fs: Frame[]) => fs.map(kindOf).join(' → ')
  if (names(w) !== names(g)) return void out.push(`frames: ${names(g)}\n   upstream: ${names(w)}`)
  w.forEach((f, i) => {
    if (f.event !== undefined && g[i]!.event !== f.event) out.push(`frame ${i}: event ${g[i]!.event} ≠ ${f.event}`)
    conform(f.data ?? f.comment, g[i]!.data ?? g[i]!.comment, `frame ${i} (${kindOf(f)})`, out)
  })
}

export interface Answer {
  status: number
  headers: Record<string, string>
  text: string
}

export function send(base: string, method: string, path: string, headers: Record<string, string>, body: unknown) {
  // `<padded:N>`: a chat request whose one user message is N "x" (the golden keeps the marker, not the bytes).
  const padded = typeof body === 'string' ? /^<padded:(\d+)>$/.exec(body) : null
  const raw = padded
    ? JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'x'.repeat(Number(padded[1])) }] })
    : body === null || body === undefined
      ? null
      : typeof body === 'string'
        ? body
        : JSON.stringify(body)
  return new Promise<Answer>((resolve, reject) => {
    // Header text goes out as its UTF-8 bytes, as upstream's aiohttp client sent it (node writes a byte per character).
    const utf8 = (v: string) => (/[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v)
    const wire = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, utf8(v)]))
    const req = request(`${base}${path}`, { method, headers: wire }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: Object.fromEntries(
            Object.entries(res.headers).map(([k, v]) => [k, Buffer.from(String(v), 'latin1').toString('utf8')])
          ),
          text: Buffer.concat(chunks).toString('utf8')
        })
      )
    })
    req.on('error', reject)
    // A Buffer body: node then writes the header block byte per character (with a string body it would re-encode the
    // header block as UTF-8 along with it).
    req.end(raw === null ? undefined : Buffer.from(raw, 'utf8'))
  })
}

/** Everything about one answer that differs from upstream's (empty = a client cannot tell them apart). */
export function diff(want: GoldenCase, got: Answer, parts: Array<'status' | 'json' | 'headers'>): string[] {
  const out: string[] = []
  if (parts.includes('status') && got.status !== want.status) out.push(`status ${got.status} (upstream ${want.status})`)
  if (parts.includes('headers')) {
    const media = (v: string | undefined) => v?.split(';')[0]!.trim()
    if (media(got.headers['content-type']) !== media(want.headers['content-type']) && want.text === undefined)
      out.push(`content-type ${got.headers['content-type']} (upstream ${want.headers['content-type']})`)
    for (const h of [
      'retry-after',
      'www-authenticate',
      'allow',
      'x-hermes-completed',
      'x-hermes-partial',
      'x-hermes-session-key'
    ])
      if (want.headers[h] !== undefined && got.headers[h] !== want.headers[h])
        out.push(`${h}: ${got.headers[h]} (upstream ${want.headers[h]})`)
    if (want.present['x-hermes-session-id'] && !got.headers['x-hermes-session-id'])
      out.push('no X-Hermes-Session-Id header')
    const sent = want.request.headers['X-Hermes-Session-Id']
    if (want.sessionEchoed && got.headers['x-hermes-session-id'] !== sent)
      out.push(`X-Hermes-Session-Id ${got.headers['x-hermes-session-id']} (upstream echoes ${sent})`)
    for (const [h, v] of Object.entries(want.security))
      if (got.headers[h] !== v) out.push(`${h}: ${got.headers[h]} (upstream ${v})`)
    for (const [h, v] of Object.entries(want.cors)) {
      const g = got.headers[h]
      const set = (s: string) => new Set(s.toLowerCase().split(/\s*,\s*/))
      if (g === undefined) out.push(`${h}: missing (upstream ${v})`)
      else if (h === 'access-control-allow-headers' || h === 'access-control-allow-methods') {
        const have = set(g)
        for (const x of set(v)) if (!have.has(x)) out.push(`${h} lacks ${x}`)
      } else if (g !== v) out.push(`${h}: ${g} (upstream ${v})`)
    }
  }
  if (parts.includes('json')) {
    if (want.sse) compareSse(want.sse, parseSse(got.text), out)
    else if (want.json !== undefined) {
      let body: unknown
      try {
        body = norm(JSON.parse(got.text))
      } catch {
        return [...out, `body is not JSON: ${got.text.slice(0, 80)}`]
      }
      conform(want.json, body, 'body', out)
    } else if (want.text !== undefined && want.text !== '' && got.text !== want.text)
      out.push(`body ${JSON.stringify(got.text.slice(0, 80))} (upstream ${JSON.stringify(want.text)})`)
  }
  return out
}
