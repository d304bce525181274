/** Maps whatever an SDK throws onto a ProviderError with a clear, key-free message. */
import { redact } from '../../secrets'
import { ProviderError } from './types'

function safeString(v: unknown): string {
  try {
    return String(v)
  } catch {
    // a thrown object whose toString itself throws
    return 'unknown error'
  }
}

const KEYISH = /\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}|Bearer\s+\S+/g

export function toProviderError(err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err
  if (signal?.aborted) return new ProviderError('aborted', 'request aborted')
  const e = (err ?? {}) as { name?: unknown; message?: unknown; status?: unknown; constructor?: { name?: string } }
  const cls = e.constructor?.name ?? ''
  const name = typeof e.name === 'string' ? e.name : ''
  const message = redact(typeof e.message === 'string' && e.message ? e.message : safeString(err))
    .replace(KEYISH, '***')
    .slice(0, 500)
  if (cls === 'APIUserAbortError' || name === 'AbortError') return new ProviderError('aborted', 'request aborted')
  if (typeof e.status === 'number')
    return new ProviderError('http', `provider returned HTTP ${e.status}: ${stripStatus(message, e.status)}`, e.status)
  if (cls === 'APIConnectionError' || cls === 'APIConnectionTimeoutError')
    return new ProviderError('network', `could not reach provider: ${message}`)
  if (err instanceof SyntaxError || /malformed|JSON/i.test(message))
    return new ProviderError('malformed', `malformed provider reply: ${message}`)
  // Node's fetch says only "terminated" when the other side closes the connection mid-body; its cause says how.
  if (message === 'terminated') {
    const cause = (err as { cause?: { message?: unknown } }).cause?.message
    const how = typeof cause === 'string' && cause ? `terminated: ${cause}` : 'terminated'
    return new ProviderError('network', `provider call failed: the connection closed before the reply ended (${how})`)
  }
  return new ProviderError('network', `provider call failed: ${message}`)
}

// SDK messages start with the status ("500 Internal error"); don't say it twice.
function stripStatus(message: string, status: number): string {
  return message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message
}
