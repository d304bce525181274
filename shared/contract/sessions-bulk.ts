/**
 * Bulk session actions from the Sessions page's selection: one request per batch so each session gets its own
 * result (a failure on one never hides or undoes the others), and export of a set of sessions or of exactly
 * the rows a list filter shows. Both are capped here, at the boundary.
 */
import { z } from 'zod'
import { ProfileName, SessionId } from './common'
import { SessionQuery, SessionSummary } from './sessions'
import { ExportFormat, SessionExportResult } from './sessions-admin'

/** Most sessions one bulk action touches (the list loads pages of 100; "select all shown" stays well under). */
export const MAX_BULK_SESSIONS = 500
/** Most sessions one export-as-shown walks before it refuses (a bigger export belongs to the CLI). */
export const MAX_EXPORT_SET = 5000

export const BulkSessionRef = z.object({ profile: ProfileName, sessionId: SessionId })
export type BulkSessionRef = z.infer<typeof BulkSessionRef>

const refs = (max: number) =>
  z
    .array(BulkSessionRef)
    .min(1, 'no sessions given')
    .max(max, `at most ${max} sessions at once`)
    .refine((a) => new Set(a.map((r) => `${r.profile}/${r.sessionId}`)).size === a.length, 'sessions repeat')

export const BulkAction = z.enum(['archive', 'unarchive', 'pin', 'unpin', 'delete'])
export type BulkAction = z.infer<typeof BulkAction>

export const SessionBulkInput = z.object({ action: BulkAction, sessions: refs(MAX_BULK_SESSIONS) })
export const BulkItemResult = z.object({
  profile: z.string(),
  sessionId: z.string(),
  ok: z.boolean(),
  /** Why this one failed (ok = false). */
  error: z.string().optional(),
  /** The row after the change (archive/pin actions that succeeded). */
  summary: SessionSummary.optional()
})
export type BulkItemResult = z.infer<typeof BulkItemResult>
export const SessionBulkResult = z.object({ results: z.array(BulkItemResult) })
export type SessionBulkResult = z.infer<typeof SessionBulkResult>

/** The list filter of `sessions.list` without paging: export walks every page of it. */
export const ListFilter = SessionQuery.omit({ limit: true, cursor: true })
export type ListFilter = z.infer<typeof ListFilter>

export const SessionExportSetInput = z
  .object({
    /**
     * Every format a single session downloads in that holds several sessions in one file: JSONL (a record each),
     * Markdown (a document each, one after another), HTML (one page, a section each). Not trace: Claude Code's JSONL
     * is one session's log, so the CLI writes a folder of them for a set (`sessions export --format trace`).
     */
    format: z.enum([...ExportFormat.options, 'html']).default('jsonl'),
    /** Exactly these sessions (a selection) … */
    sessions: refs(MAX_EXPORT_SET).optional(),
    /** … or exactly the rows this list filter shows. */
    filter: ListFilter.optional(),
    /**
     * A compression chain exports whole, as the list shows it (one row): one record with its segments, as
     * upstream's lineage export writes it. A session that is no chain exports as itself either way.
     */
    lineage: z.boolean().optional()
  })
  .refine((v) => (v.sessions ? !v.filter : !!v.filter), 'give either sessions or filter')
export type SessionExportSetInput = z.input<typeof SessionExportSetInput>
export const SessionExportSetResult = SessionExportResult.extend({
  /** Sessions written. */
  count: z.number().int(),
  /** Sessions asked for that could not be exported (gone meanwhile, unknown profile). */
  skipped: z.array(z.object({ profile: z.string(), sessionId: z.string(), reason: z.string() }))
})
export type SessionExportSetResult = z.infer<typeof SessionExportSetResult>

export const sessionsBulkRequests = {
  /** Archive / unarchive / pin / unpin / delete many sessions (across profiles); one result per session. */
  'sessions.bulk': { input: SessionBulkInput, output: SessionBulkResult },
  /** Export a selection, or every row a list filter shows, as one JSONL, Markdown or HTML download. */
  'sessions.exportSet': { input: SessionExportSetInput, output: SessionExportSetResult }
} as const
