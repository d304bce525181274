/** Session admin requests (delete, prune, archive by filter, export, import): thin over the store's typed functions. */
import { CaduceusError, MAX_IMPORT_SESSIONS, type SessionPruneResult } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import { type Services, exportChunks, exportFilename, exportMime } from '../services'
import { removeSessionFiles } from '../../files'

type AdminHandlers = Pick<
  HandlerMap,
  'sessions.delete' | 'sessions.prune' | 'sessions.archiveMatching' | 'sessions.export' | 'sessions.import'
>

/** A prune or archive candidate as the contract carries it (the row's own fields only). */
const candidate = (c: NonNullable<SessionPruneResult['candidates']>[number]) => ({
  id: c.id,
  source: c.source,
  title: c.title,
  model: c.model,
  startedAt: c.startedAt,
  endedAt: c.endedAt,
  messageCount: c.messageCount
})

/** What a download may hold; a bigger export belongs to the CLI, which streams. */
const MAX_EXPORT_CHARS = 64 * 1024 * 1024

/**
 * After a delete or prune committed: the files upstream's delete removes with a session (`<id>.json`, `<id>.jsonl`,
 * its request dumps) go for exactly the sessions whose rows went, in the profile's own home.
 */
export function dropFiles(s: Services, profile: string, deletedIds: readonly string[]): void {
  if (!deletedIds.length) return
  const store = s.stores.get(profile)
  removeSessionFiles(s.homeOf(profile), deletedIds, (id) => store.getSession(id) !== null)
}

export function sessionAdminHandlers(s: Services): AdminHandlers {
  return {
    'sessions.delete': async ({ profile, sessionId }) => {
      const store = s.stores.get(profile)
      const r = await store.deleteSession(sessionId)
      dropFiles(s, profile, r.deletedIds)
      return { deleted: r.deleted, detachedChildren: r.detachedChildren }
    },
    'sessions.prune': async ({ profile, ...filter }) => {
      const r = await s.stores.get(profile).pruneSessions(filter)
      dropFiles(s, profile, r.deletedIds ?? [])
      return {
        deleted: r.deleted,
        ...(r.detached !== undefined ? { detached: r.detached } : {}),
        ...(r.candidates ? { candidates: r.candidates.map(candidate) } : {})
      }
    },
    'sessions.archiveMatching': async ({ profile, ...filter }) => {
      const r = await s.stores.get(profile).archiveSessions(filter)
      return { archived: r.archived, ...(r.candidates ? { candidates: r.candidates.map(candidate) } : {}) }
    },
    'sessions.export': ({ profile, sessionId, format, onlyUserPrompts, lineage }) => {
      const name = profile ?? 'default'
      const opts = { format, onlyUserPrompts, lineage, sessionId }
      let content = ''
      for (const chunk of exportChunks(s.stores.get(name), opts)) {
        content += chunk
        if (content.length > MAX_EXPORT_CHARS)
          throw new CaduceusError(
            'refused',
            'export is too large for a download; use `caduceus sessions export`',
            'sessionId'
          )
      }
      return { filename: exportFilename(name, opts), mime: exportMime(format), content }
    },
    'sessions.import': async ({ profile, content }) =>
      await s.stores.get(profile).importJsonl(content, MAX_IMPORT_SESSIONS)
  }
}
