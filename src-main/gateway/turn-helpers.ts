/** Small pure helpers of the turn runner: input validation, guarded row reads, cost mapping. */
import { CaduceusError } from '@shared/contract'
import type { GatewayStore } from './gateway-types'

export function parseInput<T>(
  schema: {
    safeParse(
      v: unknown
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ message: string; path: PropertyKey[] }> } }
  },
  input: unknown
): T {
  const r = schema.safeParse(input)
  if (r.success) return r.data
  const issue = r.error.issues[0]
  throw new CaduceusError('invalid_input', issue.message, issue.path.map(String).join('.') || undefined)
}

/**
 * A row read that never throws and ignores async stores (the guard needs a synchronous answer). Uses the
 * store's two-column `sessionCounters` when it has one: this runs on every turn's cache-hit path.
 */
export function readRow(store: GatewayStore, sid: string): { message_count?: unknown; ended_at?: unknown } | null {
  try {
    const row = typeof store.sessionCounters === 'function' ? store.sessionCounters(sid) : store.getSession(sid)
    return row && typeof (row as { then?: unknown }).then !== 'function' ? row : null
  } catch (err) {
    // A database locked by another program is not a missing session: let the caller say it is locked.
    if (/^SQLITE_(BUSY|LOCKED)/.test(String((err as { code?: unknown })?.code ?? ''))) throw err
    return null
  }
}

export function countOf(row: { message_count?: unknown } | null): number | null {
  if (!row) return null
  const n = Number(row.message_count ?? 0)
  return Number.isFinite(n) ? n : null
}
