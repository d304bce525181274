/**
 * Session admin requests (hermes-channels §4): delete, prune, export and import. Rename / pin / archive stay
 * on `sessions.update`. Import content is bounded here so an oversized payload is refused at the boundary.
 */
import { z } from 'zod'
import { ProfileName, SessionId } from './common'

/** Upper bounds on one import payload (upstream bounds sessions and bytes too). */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024
export const MAX_IMPORT_SESSIONS = 10_000

export const SessionDeleteInput = z.object({ profile: ProfileName, sessionId: SessionId })
export const SessionDeleteResult = z.object({ deleted: z.boolean(), detachedChildren: z.number().int() })
export type SessionDeleteResult = z.infer<typeof SessionDeleteResult>

export const SessionPruneInput = z.object({
  profile: ProfileName,
  olderThanDays: z.number().int().min(1).max(36_500).default(90)
})
export const SessionPruneResult = z.object({ deleted: z.number().int() })
export type SessionPruneResult = z.infer<typeof SessionPruneResult>

export const ExportFormat = z.enum(['jsonl', 'markdown'])
export type ExportFormat = z.infer<typeof ExportFormat>
export const SessionExportInput = z.object({
  profile: ProfileName.optional(),
  sessionId: SessionId.optional(),
  format: ExportFormat.default('jsonl'),
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
export const ImportError = z.object({ id: z.string(), reason: z.string() })
export const SessionImportResult = z.object({
  imported: z.number().int(),
  skipped: z.number().int(),
  detached: z.number().int(),
  errors: z.array(ImportError)
})
export type SessionImportResult = z.infer<typeof SessionImportResult>

export const sessionsAdminRequests = {
  /** Delete one session: its messages and FTS rows go with it; children are detached, not lost. */
  'sessions.delete': { input: SessionDeleteInput, output: SessionDeleteResult },
  /** Delete ended sessions older than N days (default 90). */
  'sessions.prune': { input: SessionPruneInput, output: SessionPruneResult },
  /** Export one session or a profile's sessions as upstream JSONL or Markdown (returned as a download). */
  'sessions.export': { input: SessionExportInput, output: SessionExportResult },
  /** Import upstream JSONL: existing ids skipped, orphans detached, runtime state reset. */
  'sessions.import': { input: SessionImportInput, output: SessionImportResult }
} as const
