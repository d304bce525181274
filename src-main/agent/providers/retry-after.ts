/** The wait a provider's reply asks for before a retry: `retry-after-ms` (OpenAI), else `Retry-After` (RFC 9110). */

/** Milliseconds a response asks us to wait, or null when it does not say. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms')
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const ra = headers.get('retry-after')
  if (!ra) return null
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.max(0, Number(ra) * 1000)
  const at = Date.parse(ra)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}
