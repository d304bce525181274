/** What every API-server route needs: the gateway's channel turns, the profile served, and counters. */
import { randomBytes } from 'node:crypto'
import { CaduceusError } from '@shared/contract'
import { pyLen, pyStrip } from '@shared/contract/py-text'
import type { ChannelTurnInput, ChannelTurnResult } from '../gateway'
import type { RunLimiter, TurnLedger } from './channel-turn'
import type { ConversationSessions } from './conversation'
import { HttpError } from './http'
import type { ModelRoute } from './settings'

/** The slice of the Gateway the API server drives (the real Gateway in the host). */
export interface ChannelGateway {
  runChannelTurn(input: ChannelTurnInput): Promise<ChannelTurnResult>
  stop(turnId: string): boolean
}

export interface ApiContext {
  gateway: ChannelGateway
  profile: string
  modelName: string
  /** The profile's stored conversations (derived session ids, branches, retries); none = every request stands alone. */
  sessions?: ConversationSessions
  turns: TurnLedger
  limiter: RunLimiter
  /** `model_routes`: a requested model alias → what runs it; any other model name runs the profile's model. */
  routes: Record<string, ModelRoute>
}

/** Upstream's bound on a session header, in code points (clients may send ids up to this long). */
const MAX_SESSION_ID = 256

/** Same shape as desk-chat ids (`YYYYMMDD_HHMMSS_hex8`), so the Sessions page sorts them alike. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0')
  const d = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}_${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`
  return `${d}_${randomBytes(4).toString('hex')}`
}

export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`

/**
 * A request header's text as upstream's server reads it: node hands header bytes over one per character (Latin-1),
 * aiohttp decodes them as UTF-8, so "café" sent by a client is "café" (not "cafÃ©") in both. Bytes that are not UTF-8
 * are dropped, as they are from what upstream uses and echoes (aiohttp keeps each as an escape that its header writer
 * drops: `abc\xffdef` is answered as session `abcdef`). `dropped` counts them: upstream's length bound counts each.
 */
function headerText(value: string | string[] | undefined): { text: string; dropped: number } {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined) return { text: '', dropped: 0 }
  if (!/[^\x00-\x7f]/.test(v)) return { text: v, dropped: 0 }
  const bytes = Buffer.from(v, 'latin1')
  const kept: number[] = []
  let dropped = 0
  for (let i = 0; i < bytes.length;) {
    const n = utf8SequenceLength(bytes, i)
    if (n === 0) {
      dropped++
      i++
      continue
    }
    for (let k = 0; k < n; k++) kept.push(bytes[i + k]!)
    i += n
  }
  return { text: Buffer.from(kept).toString('utf8'), dropped }
}

/**
 * The length of the well-formed UTF-8 sequence at `i` (Unicode's table 3-7: no overlong forms, no surrogates, nothing
 * past U+10FFFF), 0 when none starts there. A byte of an ill-formed sequence is skipped alone: the bytes after it are
 * continuation bytes, which start no sequence either, so the whole ill-formed part goes as Python's decoder reports it.
 */
function utf8SequenceLength(b: Buffer, i: number): number {
  const c = b[i]!
  if (c < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c >= 0xe0 && c <= 0xef) {
    const [lo, hi] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : [0x80, 0xbf]
    return cont(1, lo, hi) && cont(2) ? 3 : 0
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const [lo, hi] = c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf]
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}

/**
 * Control characters (C0 but tab, DEL, C1) and Unicode's line and paragraph separators: kept out of an id, which
 * is written into log lines and headers. Upstream refuses only CR, LF and NUL; in a header the others never arrive
 * (both servers' HTTP parsers refuse them) but a run's body `session_id` or a UTF-8 NEL/LS could carry them.
 */
// eslint-disable-next-line no-control-regex
const LINE_BREAKING = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/

/**
 * A session id a caller names (`X-Hermes-Session-Id`, a run's `session_id`), by upstream's rule: surrounding
 * whitespace stripped; refused when it could leave the sessions folder as a file name (upstream writes
 * `sessions/<id>.json`, request dumps): a "..", a "/" or "\\" anywhere, or a drive prefix (a letter, then ":"); at most
 * 256 code points. Anything else is an id: spaces, "~", quotes, non-ASCII letters and emoji, as upstream takes them.
 */
export function sessionIdOf(raw: string, dropped = 0): string | undefined {
  const v = pyStrip(raw)
  if (v === '') return undefined
  if (LINE_BREAKING.test(v) || v.includes('..') || /[/\\]/.test(v) || /^\p{L}:/u.test(v))
    throw new HttpError(400, 'Invalid session ID')
  if (pyLen(v) + dropped > MAX_SESSION_ID) throw new HttpError(400, 'Session ID too long')
  return v
}

/**
 * The opt-in continuity header; a malformed id is refused rather than silently starting a new session. So is one made
 * only of bytes that are not UTF-8 (and whitespace): the caller named a session, and nothing of it is left to continue.
 * Upstream answers such a header 200 under an id its answer cannot name (an empty `X-Hermes-Session-Id`) and stores
 * nothing (test/fixtures/upstream/api-parity, header_bytes_only), so the turn is lost to the caller either way; read as
 * no header it would silently land in another session.
 */
export function sessionHeader(value: string | string[] | undefined): string | undefined {
  const { text, dropped } = headerText(value)
  const id = sessionIdOf(text, dropped)
  if (id === undefined && dropped > 0)
    throw new HttpError(400, 'Invalid session ID: X-Hermes-Session-Id holds no UTF-8 text')
  return id
}

/**
 * `X-Hermes-Session-Key`: a stable per-conversation key the caller scopes long-term memory by, across the
 * transcripts X-Hermes-Session-Id names (upstream's `gateway_session_key`; its rules and messages). Upstream refuses
 * it without a configured key; this server always has one. Echoed back on the answer.
 */
export function memoryKeyHeader(value: string | string[] | undefined): string | undefined {
  const { text, dropped } = headerText(value)
  const v = pyStrip(text)
  // Only bytes that are not UTF-8: refused (as an id made of them is) rather than read as no key, which would run the
  // caller in the profile's unscoped memory. Upstream scopes by its escaped text and echoes an empty key.
  if (!v && dropped > 0) throw new HttpError(400, 'Invalid session key: X-Hermes-Session-Key holds no UTF-8 text')
  if (!v) return undefined
  if (LINE_BREAKING.test(v)) throw new HttpError(400, 'Invalid session key')
  if (pyLen(v) + dropped > MAX_SESSION_ID) throw new HttpError(400, 'Session key too long')
  return v
}

/** The echo of a request's memory key on its answer (none when it sent none). */
export const memoryKeyEcho = (key: string | undefined): Record<string, string> =>
  key ? { 'x-hermes-session-key': key } : {}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on'])
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off'])

/**
 * A request flag (`stream`, `store`) as upstream reads it: some clients and proxies send `"true"`/`"false"` strings or
 * numbers; those words and numbers count, anything else is the default.
 */
export function requestFlag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value)
  if (typeof value !== 'string') return fallback
  const word = value.trim().toLowerCase()
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : fallback
}

/**
 * A Responses or Runs request's explicit `conversation_history` (upstream's): messages before the input, taking the
 * place of any previous_response_id chain. Empty when absent.
 */
export function explicitHistory(raw: unknown): Array<{ role: string; content: unknown }> {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return []
  if (!Array.isArray(raw)) throw new HttpError(400, "'conversation_history' must be an array of message objects")
  return raw.map((e: unknown, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e) || !('role' in e) || !('content' in e))
      throw new HttpError(400, `conversation_history[${i}] must have 'role' and 'content' fields`)
    return { role: String(e.role), content: e.content }
  })
}

/** A gateway failure as an HTTP error (never a stack, never a key: the gateway already redacts). */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof HttpError) return err
  if (err instanceof CaduceusError) {
    const status = { not_found: 404, invalid_input: 400, conflict: 409, unavailable: 503 }[err.code as string] ?? 500
    return new HttpError(status, err.message, status >= 500 ? 'server_error' : 'invalid_request_error', err.code)
  }
  return new HttpError(500, (err instanceof Error && err.message) || 'internal error', 'server_error')
}

/**
 * A turn's tokens as upstream's API server reports them (its agent's session_prompt_tokens): the prompt whole, cache
 * reads and writes included, as the provider counted it — the session row's input_tokens keeps only the uncached part.
 */
function turnTokens(r: ChannelTurnResult): { prompt: number; output: number; total: number } {
  const prompt = r.tokens.input + r.tokens.cacheRead + r.tokens.cacheWrite
  return { prompt, output: r.tokens.output, total: prompt + r.tokens.output }
}

/** Chat Completions' usage. */
export function usageOf(r: ChannelTurnResult) {
  const t = turnTokens(r)
  return { prompt_tokens: t.prompt, completion_tokens: t.output, total_tokens: t.total }
}

/** The Responses API's (and a run's) usage. */
export function responseUsageOf(r: ChannelTurnResult) {
  const t = turnTokens(r)
  return { input_tokens: t.prompt, output_tokens: t.output, total_tokens: t.total }
}
