/**
 * Session admin requests (hermes-channels §4): delete, prune, export and import. Rename / pin / archive stay
 * on `sessions.update`. Import content is bounded here so an oversized payload is refused at the boundary.
 */
import { z } from 'zod'
import { ProfileName, SessionId } from './common'

/** Upper bounds on one import payload (upstream bounds sessions and bytes too). */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024
export const MAX_IMPORT_SESSIONS = 10_000
/**
 * The largest call frame a transport takes: the headless WebSocket's payload limit and its HTTP body limit, and the
 * size the WebSocket client refuses to send (a bigger frame would close the socket and fail every call on it). It
 * carries the largest import above: the JSONL as a JSON string at most doubles in UTF-8 (each quote, backslash and
 * line end escaped), plus room for the envelope.
 */
export const MAX_CALL_FRAME_BYTES = 2 * MAX_IMPORT_BYTES + 1024 * 1024

export const SessionDeleteInput = z.object({ profile: ProfileName, sessionId: SessionId })
export const SessionDeleteResult = z.object({ deleted: z.boolean(), detachedChildren: z.number().int() })
export type SessionDeleteResult = z.infer<typeof SessionDeleteResult>

const bound = z.number().finite().min(0).optional()
const text = z.string().min(1).max(512).optional()
/**
 * Upstream's prune filters (`hermes sessions prune`), all ANDed; only ended sessions are ever selected.
 * `olderThanDays` bounds `started_at`: default 90 unless `startedBefore`/`startedAfter` is given, null for no age
 * bound (upstream's `older_than_days=None`, what its CLI passes whenever any filter is given). Archived
 * sessions are kept unless asked for, as `hermes sessions prune` keeps them: `archived` true selects only them,
 * false only the others, and `includeArchived` (`--include-archived`) selects both.
 */
export const PruneFilterInput = z.object({
  olderThanDays: z.number().min(0).max(36_500).nullable().optional(),
  startedBefore: z.number().finite().optional(),
  startedAfter: z.number().finite().optional(),
  source: text,
  titleLike: text,
  endReason: text,
  cwdPrefix: text,
  modelLike: text,
  provider: text,
  userId: text,
  chatId: text,
  chatType: text,
  branchLike: text,
  archived: z.boolean().optional(),
  includeArchived: z.boolean().optional(),
  minMessages: bound,
  maxMessages: bound,
  minTokens: bound,
  maxTokens: bound,
  minCost: bound,
  maxCost: bound,
  minToolCalls: bound,
  maxToolCalls: bound
})
export type PruneFilterInput = z.infer<typeof PruneFilterInput>

/** The age cutoff of a prune that names no filter at all (upstream's bare `hermes sessions prune`). */
export const DEFAULT_PRUNE_DAYS = 90
/**
 * Upstream's CLI rule for the implicit cutoff: a prune that names no filter — no time bound, no text, count, token,
 * cost or tool-call bound; the archived switches do not count — gets `DEFAULT_PRUNE_DAYS`, and any filter drops it
 * (`prune --source cron` takes every ended cron session, whatever its age). The CLI's flags and the Prune dialog's
 * fields both decide their age bound with this.
 */
export function isBarePrune(f: PruneFilterInput): boolean {
  return Object.entries(f).every(
    ([k, v]) => v === undefined || k === 'olderThanDays' || k === 'archived' || k === 'includeArchived'
  )
}

/** Most previewed sessions a prune may be held to (`sessionIds`). */
export const MAX_PRUNE_IDS = 100_000
export const SessionPruneInput = PruneFilterInput.extend({
  profile: ProfileName,
  /** List what would go; delete nothing. */
  dryRun: z.boolean().optional(),
  /**
   * Only these of the matching sessions: the ids a dry run listed, so a confirmed prune deletes no session its
   * preview did not show (one that started to match since is kept; one that stopped matching is kept too).
   */
  sessionIds: z.array(SessionId).max(MAX_PRUNE_IDS).optional()
})
export const PruneCandidate = z.object({
  id: z.string(),
  source: z.string(),
  title: z.string().nullable(),
  model: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number(),
  messageCount: z.number()
})
export const SessionPruneResult = z.object({
  deleted: z.number().int(),
  /** Children outside the selection, detached from a pruned parent (kept). */
  detached: z.number().int().optional(),
  /** With dryRun: the sessions that would be deleted, oldest first. */
  candidates: z.array(PruneCandidate).optional()
})
export type SessionPruneResult = z.infer<typeof SessionPruneResult>

/**
 * Archive (hide, delete nothing) the ended, not yet archived sessions matching upstream's prune filters, as
 * `hermes sessions archive` does: no implicit age cutoff, and at least one filter, or it refuses.
 */
export const SessionArchiveMatchingInput = PruneFilterInput.omit({
  olderThanDays: true,
  archived: true,
  includeArchived: true
}).extend({
  profile: ProfileName,
  /** List what would be archived; change nothing. */
  dryRun: z.boolean().optional()
})
export const SessionArchiveMatchingResult = z.object({
  archived: z.number().int(),
  /** With dryRun: the sessions that would be archived, oldest first. */
  candidates: z.array(PruneCandidate).optional()
})

export const ExportFormat = z.enum(['jsonl', 'markdown'])
export type ExportFormat = z.infer<typeof ExportFormat>
export const SessionExportInput = z.object({
  profile: ProfileName.optional(),
  sessionId: SessionId.optional(),
  /** `html`: one self-contained page (the Session page's HTML download). */
  format: z.enum([...ExportFormat.options, 'html']).default('jsonl'),
  onlyUserPrompts: z.boolean().optional(),
  lineage: z.boolean().optional()
})
export type SessionExportInput = z.input<typeof SessionExportInput>
export const SessionExportResult = z.object({ filename: z.string(), mime: z.string(), content: z.string() })
export type SessionExportResult = z.infer<typeof SessionExportResult>

export const SessionImportInput = z.object({
  profile: ProfileName,
  content: z.string().max(MAX_IMPORT_BYTES, `import is larger than ${MAX_IMPORT_BYTES} bytes`)
})
/** A rejected line (its 1-based `line`) or session; the rest of the file is imported. */
export const ImportError = z.object({ id: z.string(), reason: z.string(), line: z.number().int().optional() })
export const SessionImportResult = z.object({
  imported: z.number().int(),
  skipped: z.number().int(),
  detached: z.number().int(),
  errors: z.array(ImportError),
  /** Fields this home has no column for (a newer upstream's): name → occurrences, ignored. */
  ignoredFields: z.record(z.string(), z.number().int()).optional()
})
export type SessionImportResult = z.infer<typeof SessionImportResult>

export const sessionsAdminRequests = {
  /** Delete one session: its messages and FTS rows go with it; children are detached, not lost. */
  'sessions.delete': { input: SessionDeleteInput, output: SessionDeleteResult },
  /** Delete ended sessions matching upstream's prune filters (default: started > 90 days ago); dryRun lists them. */
  'sessions.prune': { input: SessionPruneInput, output: SessionPruneResult },
  /** Archive ended sessions matching upstream's prune filters (at least one); dryRun lists them. */
  'sessions.archiveMatching': { input: SessionArchiveMatchingInput, output: SessionArchiveMatchingResult },
  /** Export one session or a profile's sessions as upstream JSONL, Markdown or an HTML page (returned as a download). */
  'sessions.export': { input: SessionExportInput, output: SessionExportResult },
  /** Import upstream JSONL: existing ids skipped, orphans detached, runtime state reset. */
  'sessions.import': { input: SessionImportInput, output: SessionImportResult }
} as const
