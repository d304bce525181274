import { randomUUID } from 'node:crypto'

/** Upstream-style session id `YYYYMMDD_HHMMSS_<hex>` (UTC), same shape the agent uses. */
export function newDeskSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}_${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`
  return `${stamp}_${randomUUID().replace(/-/g, '').slice(0, 8)}`
}
