/**
 * `sessions.bulk` and `sessions.exportSet`: a selection on the Sessions page acts per session, each in its own
 * write, so one failure (gone meanwhile, a locked profile) is reported against that session and the rest still
 * apply — the renderer says "3 of 5 deleted; 2 failed: …" from these results. A set exports in every format a single
 * session downloads in (JSONL, Markdown, HTML: one page for the whole set).
 */
import {
  CaduceusError,
  MAX_EXPORT_SET,
  type BulkAction,
  type BulkItemResult,
  type ListFilter,
  type SessionPage,
  type SessionSummary
} from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import { type Services, exportChunks, exportHtml, exportMime } from '../services'
import { priceSessionRows, readPriceOverrides } from '../../costs'
import { dropFiles } from './sessions-admin'

type BulkHandlers = Pick<HandlerMap, 'sessions.bulk' | 'sessions.exportSet'>
type Stores = Services['stores']

/** Same ceiling as a single download (sessions.export). */
const MAX_EXPORT_CHARS = 64 * 1024 * 1024
const LIST_PAGE = 500
const EXTENSION = { jsonl: 'jsonl', markdown: 'md', html: 'html' } as const

const notFound = (profile: string, id: string) =>
  new CaduceusError('not_found', `No session '${id}' in profile '${profile}'`, 'sessionId')

async function applyOne(s: Services, action: BulkAction, profile: string, id: string): Promise<BulkItemResult> {
  try {
    const store = s.stores.get(profile)
    if (action === 'delete') {
      const r = await store.deleteSession(id)
      if (!r.deleted) throw notFound(profile, id)
      dropFiles(s, profile, r.deletedIds)
      return { profile, sessionId: id, ok: true }
    }
    if (!store.getSession(id)) throw notFound(profile, id)
    if (action === 'archive' || action === 'unarchive') await store.setArchived(id, action === 'archive')
    else await store.setPinned(id, action === 'pin')
    const summary = store.summary(id)
    if (!summary) throw notFound(profile, id)
    return { profile, sessionId: id, ok: true, summary }
  } catch (err) {
    return { profile, sessionId: id, ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

/** Every row `sessions.list` would show for this filter, walking its pages; refused past `max`. */
function listAllRows(stores: Stores, filter: ListFilter, max: number) {
  const { profile, ...q } = filter
  const rows: SessionSummary[] = []
  let cursor: string | null = null
  do {
    const page: SessionPage =
      profile === 'all'
        ? stores.listAll({ ...q, limit: LIST_PAGE, cursor })
        : stores.get(profile).listSessions({ ...q, limit: LIST_PAGE, cursor })
    rows.push(...page.items)
    if (rows.length > max)
      throw new CaduceusError('refused', `more than ${max} sessions match; use \`caduceus sessions export\``, 'filter')
    cursor = page.nextCursor
  } while (cursor)
  return rows
}

export function sessionBulkHandlers(s: Services, maxExport = MAX_EXPORT_SET): BulkHandlers {
  return {
    'sessions.bulk': async ({ action, sessions }) => {
      const results: BulkItemResult[] = []
      // one at a time: writes to a profile serialise anyway, and the order of results matches the input
      for (const r of sessions) results.push(await applyOne(s, action, r.profile, r.sessionId))
      // rows come back as sessions.list shows them: with the user's prices for unpriced usage
      const rows = results.flatMap((r) => (r.summary ? [r.summary] : []))
      const priced = priceSessionRows(
        (p) => s.stores.get(p),
        rows,
        () => readPriceOverrides(s.root)
      )
      let i = 0
      return { results: results.map((r) => (r.summary ? { ...r, summary: priced[i++]! } : r)) }
    },
    'sessions.exportSet': ({ format, sessions, filter, lineage }) => {
      const wanted =
        sessions ?? listAllRows(s.stores, filter!, maxExport).map((r) => ({ profile: r.profile, sessionId: r.id }))
      const skipped: Array<{ profile: string; sessionId: string; reason: string }> = []
      let content = ''
      let count = 0
      // HTML: one page for the whole selection, whatever profiles it spans (a single session's export is one too)
      const page: Array<Record<string, unknown>> | undefined = format === 'html' ? [] : undefined
      let pageChars = 0
      for (const { profile, sessionId } of wanted) {
        try {
          const store = s.stores.get(profile)
          const whole = !!lineage && store.compressionChainIds(sessionId).length > 1
          const from = page?.length ?? 0
          for (const chunk of exportChunks(store, { format, sessionId, lineage: whole, gather: page })) content += chunk
          for (const rec of page?.slice(from) ?? []) pageChars += JSON.stringify(rec).length
          count++
        } catch (err) {
          skipped.push({ profile, sessionId, reason: err instanceof Error ? err.message : String(err) })
        }
        if (content.length + pageChars > MAX_EXPORT_CHARS)
          throw new CaduceusError('refused', 'export is too large for a download; use `caduceus sessions export`')
      }
      if (page) content = exportHtml(page)
      const profiles = [...new Set(wanted.map((w) => w.profile))]
      const who = profiles.length === 1 ? profiles[0]! : 'all'
      const what = sessions ? 'selected' : 'shown'
      return {
        filename: `caduceus-${who}-${what}-${count}.${EXTENSION[format]}`,
        mime: exportMime(format),
        content,
        count,
        skipped
      }
    }
  }
}
