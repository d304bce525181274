/** Session admin requests (delete, prune, export, import): thin over the store's typed functions. */
import { CaduceusError } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'

type AdminHandlers = Pick<HandlerMap, 'sessions.delete' | 'sessions.prune' | 'sessions.export' | 'sessions.import'>

export function sessionAdminHandlers(s: Services): AdminHandlers {
  return {
    'sessions.delete': async ({ profile, sessionId }) => await s.stores.get(profile).deleteSession(sessionId),
    'sessions.prune': async ({ profile, olderThanDays }) => await s.stores.get(profile).pruneSessions(olderThanDays),
    'sessions.export': () => { throw new CaduceusError('unavailable', 'export is not built yet') },
    'sessions.import': () => { throw new CaduceusError('unavailable', 'import is not built yet') }
  }
}
