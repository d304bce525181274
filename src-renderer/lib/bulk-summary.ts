import type { BulkAction } from '@shared/contract'

const VERB: Record<BulkAction, string> = {
  archive: 'archived',
  unarchive: 'unarchived',
  pin: 'pinned',
  unpin: 'unpinned',
  delete: 'deleted'
}

/**
 * One line for a batch's outcome: "Archived 5 sessions", or on a partial failure
 * "3 of 5 deleted; 2 failed: No session 'x' in profile 'work'" (distinct reasons, the first three).
 */
export function bulkSummary(
  action: BulkAction,
  results: ReadonlyArray<{ ok: boolean; error?: string }>
): { kind: 'info' | 'error'; message: string } {
  const n = results.length
  const failed = results.filter((r) => !r.ok)
  const verb = VERB[action]
  if (!failed.length)
    return { kind: 'info', message: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${n} session${n === 1 ? '' : 's'}` }
  const reasons = [...new Set(failed.map((r) => r.error || 'unknown error'))]
  const why = reasons.slice(0, 3).join('; ') + (reasons.length > 3 ? `; +${reasons.length - 3} more` : '')
  return { kind: 'error', message: `${n - failed.length} of ${n} ${verb}; ${failed.length} failed: ${why}` }
}

/** Split a batch into request-sized pieces (the host caps one request). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
