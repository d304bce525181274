// provider_limits is read only where an agent is assembled, so its typed reader lives here, not in config/.
import { readSection, type RawConfig } from '../../config'

/**
 * `provider_limits:` in config.yaml (Caduceus-only; seconds / characters / counts). Absent or invalid values
 * fall back to the agent's defaults (call-limits.ts: 120 s inactivity, 15 min per call, 1,000,000 characters,
 * 2 retries, 30 s longest Retry-After honoured, 16 MB per reply, 4 MB per line/event, tool-call arguments up to
 * max_reply_chars, 2 s first wait before asking again for a stream cut before any text). Read when an agent is built.
 */
export function providerLimitSettings(raw: RawConfig): {
  inactivityMs?: number
  totalMs?: number
  maxReplyChars?: number
  maxRetries?: number
  maxRetryWaitMs?: number
  maxResponseBytes?: number
  maxLineBytes?: number
  maxToolArgsChars?: number
  streamRetryWaitMs?: number
} {
  const s = readSection(raw, 'provider_limits')
  const out: ReturnType<typeof providerLimitSettings> = {}
  const pos = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0
  if (pos(s.inactivity_timeout)) out.inactivityMs = Math.round((s.inactivity_timeout as number) * 1000)
  if (pos(s.call_timeout)) out.totalMs = Math.round((s.call_timeout as number) * 1000)
  if (pos(s.max_reply_chars)) out.maxReplyChars = Math.floor(s.max_reply_chars as number)
  if (pos(s.max_response_bytes)) out.maxResponseBytes = Math.floor(s.max_response_bytes as number)
  if (pos(s.max_line_bytes)) out.maxLineBytes = Math.floor(s.max_line_bytes as number)
  if (pos(s.max_tool_args_chars)) out.maxToolArgsChars = Math.floor(s.max_tool_args_chars as number)
  if (typeof s.max_retries === 'number' && Number.isInteger(s.max_retries) && s.max_retries >= 0 && s.max_retries <= 10)
    out.maxRetries = s.max_retries
  if (typeof s.max_retry_wait === 'number' && Number.isFinite(s.max_retry_wait) && s.max_retry_wait >= 0)
    out.maxRetryWaitMs = Math.round(s.max_retry_wait * 1000)
  if (typeof s.stream_retry_wait === 'number' && Number.isFinite(s.stream_retry_wait) && s.stream_retry_wait >= 0)
    out.streamRetryWaitMs = Math.round(s.stream_retry_wait * 1000)
  return out
}
