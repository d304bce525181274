import {
  MAX_BULK_SESSIONS,
  type BulkAction,
  type BulkItemResult,
  type SessionExportSetInput,
  type SessionQuery,
  type SessionSummary
} from '@shared/contract'
import { getApi } from '../api'
import { bulkSummary, chunks } from '../lib/bulk-summary'
import { download } from '../lib/download'
import { keepSelected } from './selection'
import { query, replaceRows, sessionKey } from './sessions'
import { pushToast, reportError } from './toasts'

const refs = (rows: readonly SessionSummary[]) => rows.map((r) => ({ profile: r.profile, sessionId: r.id }))

/** Send a batch in request-sized pieces; a piece that fails as a whole marks each of its sessions failed. */
export async function sendBulk(
  action: BulkAction,
  items: ReadonlyArray<{ profile: string; sessionId: string }>
): Promise<BulkItemResult[]> {
  const results: BulkItemResult[] = []
  for (const part of chunks(items, MAX_BULK_SESSIONS)) {
    try {
      results.push(...(await getApi().call('sessions.bulk', { action, sessions: part })).results)
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err)
      results.push(...part.map((r) => ({ ...r, ok: false, error })))
    }
  }
  return results
}

/**
 * Archive / unarchive / pin / unpin the selected rows. Rows update in place; a row the archive filter no longer
 * shows leaves the list at once. Failures are named in one toast and stay selected.
 */
export async function runBulk(action: Exclude<BulkAction, 'delete'>, rows: readonly SessionSummary[]): Promise<void> {
  if (!rows.length) return
  const results = await sendBulk(action, refs(rows))
  replaceRows(results.flatMap((r) => (r.summary ? [r.summary] : [])))
  keepSelected(results.filter((r) => !r.ok).map((r) => sessionKey(r.profile, r.sessionId)))
  const { kind, message } = bulkSummary(action, results)
  pushToast(kind, message)
}

/** The formats a set downloads in: a single session's (Export, Markdown, HTML), each holding the whole set. */
export type SetFormat = NonNullable<SessionExportSetInput['format']>

/**
 * Export exactly these rows (a selection), or exactly what the list's filter shows, as one download: JSONL,
 * Markdown, or one HTML page.
 */
export async function exportRows(rows?: readonly SessionSummary[], format: SetFormat = 'jsonl'): Promise<void> {
  try {
    const { limit: _limit, cursor: _cursor, ...filter }: SessionQuery = query(null)
    // the list shows a compression chain as one conversation (its tip's row): it exports whole
    const out = await getApi().call('sessions.exportSet', {
      ...(rows?.length ? { sessions: refs(rows) } : { filter }),
      format,
      lineage: true
    })
    download(out.filename, out.mime, out.content)
    if (out.skipped.length)
      pushToast(
        'error',
        `Exported ${out.count}; ${out.skipped.length} skipped: ${[...new Set(out.skipped.map((s) => s.reason))].slice(0, 3).join('; ')}`
      )
  } catch (err) {
    reportError(err, 'Export')
  }
}
