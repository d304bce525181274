// provider_limits is read only where an agent is assembled, so its typed reader lives here, not in config/.
import { isPlainObject, readSection, type RawConfig } from '../../config'
import { pyFloatValue, pythonFloat } from '@shared/contract/py-text'

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

/** The longest wait a timer takes (Node fires a longer one at once): a timeout past it is no timeout at all. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** Seconds as the call's inactivity clock takes them: 0 turns it off (infinity, or longer than a timer can wait). */
const clockMs = (s: number) => (s === Infinity || s * 1000 > MAX_TIMER_MS ? 0 : Math.max(1, Math.round(s * 1000)))
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))

/**
 * Upstream's "local endpoint" (agent/model_metadata.py is_local_endpoint): loopback, a container's name for its host,
 * a host name without a dot, a private, link-local or Tailscale (100.64/10) address. Its streamed calls wait on
 * such a server up to HERMES_API_TIMEOUT instead of the stream read timeout (a local model's prefill takes minutes).
 */
function isLocalEndpoint(baseUrl: string): boolean {
  let host: string
  try {
    const t = baseUrl.trim()
    host = new URL(t.includes('://') ? t : `http://${t}`).hostname.toLowerCase().replace(/^\[|\]$/g, '')
  } catch {
    // no URL at all: nothing upstream would take for a local server either
    return false
  }
  if (!host) return false
  if (['localhost', '127.0.0.1', '::1', '0.0.0.0'].includes(host)) return true
  if (['.docker.internal', '.containers.internal', '.lima.internal'].some((s) => host.endsWith(s))) return true
  if (!host.includes('.') && !host.includes(':')) return true
  if (host.includes(':')) return host === '::' || /^f[cd]|^fe[89ab]/.test(host)
  const o = host.split('.').map(Number)
  if (o.length !== 4 || o.some((n) => !Number.isInteger(n))) return false
  const [a, b] = o as [number, number]
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  )
}

/**
 * How long a streamed provider call may wait for its next bytes, read as upstream reads it
 * (test/fixtures/upstream/provider-timeouts): `providers.<provider>.models.<model>.timeout_seconds`, else
 * `providers.<provider>.request_timeout_seconds` (seconds; anything float() takes, above 0); else the
 * `HERMES_STREAM_READ_TIMEOUT` variable (default 120 s), which for a local endpoint left at that default is
 * `HERMES_API_TIMEOUT` (default 1800 s) instead. The profile's `.env` is read over the process environment, as
 * upstream loads it over the shell's. `configured`: the config.yaml value (it wins over `provider_limits`), `fromEnv`
 * the rest; in ms, 0 = no limit.
 *
 * A value upstream cannot use is left out as upstream leaves it out, and said in `warnings` (upstream says nothing).
 * Where upstream would still take one — NaN from config.yaml, zero or a negative number from the environment, which
 * would make every call fail at once — it is left out too.
 */
export function providerReadTimeout(
  raw: RawConfig,
  target: { provider: string; model: string; baseUrl: string },
  env: Readonly<Record<string, string | undefined>>
): { configured?: number; fromEnv: number; warnings: string[] } {
  const warnings: string[] = []
  const seconds = (v: unknown, where: string): number | null => {
    if (v === undefined || v === null) return null
    const s = pyFloatValue(v)
    if (s !== null && s > 0) return s
    warnings.push(`config.yaml ${where}: ${shown(v)} is not a number of seconds above 0, so it is not used.`)
    return null
  }
  const own = (o: unknown, k: string) => (isPlainObject(o) && Object.hasOwn(o, k) ? o[k] : undefined)
  const p = own(raw.providers, target.provider)
  if (isPlainObject(p)) {
    const m = own(p.models, target.model)
    const where = `providers.${target.provider}`
    const configured =
      (isPlainObject(m) ? seconds(m.timeout_seconds, `${where}.models.${target.model}.timeout_seconds`) : null) ??
      seconds(p.request_timeout_seconds, `${where}.request_timeout_seconds`)
    if (configured !== null) return { configured: clockMs(configured), fromEnv: clockMs(configured), warnings }
  }
  const variable = (name: string, fallback: number): number => {
    const text = env[name]
    if (text === undefined || text.trim() === '') return fallback
    const s = pythonFloat(text)
    if (s !== null && s > 0) return s
    warnings.push(`${name}=${text.trim()} is not a number of seconds above 0, so ${fallback} s is used.`)
    return fallback
  }
  const streamRead = variable('HERMES_STREAM_READ_TIMEOUT', 120)
  const read = streamRead === 120 && isLocalEndpoint(target.baseUrl) ? variable('HERMES_API_TIMEOUT', 1800) : streamRead
  return { fromEnv: clockMs(read), warnings }
}
