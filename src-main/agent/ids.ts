import { randomUUID } from 'node:crypto'

/** Upstream-style session id: `YYYYMMDD_HHMMSS_<hex>` (UTC). */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}_${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`
  return `${stamp}_${randomUUID().replace(/-/g, '').slice(0, 8)}`
}

export const newTurnId = () => `turn_${randomUUID().replace(/-/g, '').slice(0, 12)}`
