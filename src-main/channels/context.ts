/** What every API-server route needs: the gateway's channel turns, the profile served, and counters. */
import { randomBytes } from 'node:crypto'
import { CaduceusError } from '@shared/contract'
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

const SESSION_ID = /^[A-Za-z0-9_.:-]+$/
/** Upstream's bound on a session header (clients may send ids up to this long). */
const MAX_SESSION_ID = 256

/** Same shape as desk-chat ids (`YYYYMMDD_HHMMSS_hex8`), so the Sessions page sorts them alike. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0')
  const d = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}_${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`
  return `${d}_${randomBytes(4).toString('hex')}`
}

export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`

/** The opt-in continuity header; a malformed id is refused rather than silently starting a new session. */
export function sessionHeader(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v === '') return undefined
  // Upstream's messages; the character set is Caduceus's own (upstream refuses only path- and header-breaking ones).
  if (v.length > MAX_SESSION_ID) throw new HttpError(400, 'Session ID too long')
  if (!SESSION_ID.test(v)) throw new HttpError(400, 'Invalid session ID')
  return v
}

/**
 * `X-Hermes-Session-Key`: a stable per-conversation key the caller scopes long-term memory by, across the
 * transcripts X-Hermes-Session-Id names (upstream's `gateway_session_key`; its rules and messages). Upstream refuses
 * it without a configured key; this server always has one. Echoed back on the answer.
 */
export function memoryKeyHeader(value: string | string[] | undefined): string | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!v) return undefined
  if (/[\r\n\0]/.test(v)) throw new HttpError(400, 'Invalid session key')
  if (v.length > MAX_SESSION_ID) throw new HttpError(400, 'Session key too long')
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
  return new HttpError(500, (err as Error)?.message ?? 'internal error', 'server_error')
}

export function usageOf(r: ChannelTurnResult) {
  return {
    prompt_tokens: r.tokens.input,
    completion_tokens: r.tokens.output,
    total_tokens: r.tokens.input + r.tokens.output
  }
}
