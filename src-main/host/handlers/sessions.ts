import { CaduceusError, type SessionPage } from '@shared/contract'
import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { priceSessionDetail, priceSessionRows, readPriceOverrides } from '../../costs'

type SessionHandlers = Pick<
  HandlerMap,
  | 'sessions.list'
  | 'sessions.sources'
  | 'sessions.get'
  | 'sessions.messages'
  | 'sessions.messageText'
  | 'sessions.search'
  | 'sessions.update'
>

const notFound = (profile: string, id: string) =>
  new CaduceusError('not_found', `No session '${id}' in profile '${profile}'`, 'sessionId')

/** One profile's list, carrying the notice its store is read with (a newer schema), as a cross-profile list does. */
const withNotice = (page: SessionPage, profile: string, notice: string | null): SessionPage =>
  notice ? { ...page, notices: [{ profile, reason: notice }] } : page

export function sessionHandlers(s: Services): SessionHandlers {
  return {
    // `q` whole, as the dispatcher handed it: the same frozen object for the same input, which the list plans its
    // statement by once (store/read-list.ts planOf); its `profile` is no list option and is ignored there.
    'sessions.list': (q) => {
      const profile = q.profile
      const one = profile === 'all' ? null : s.stores.get(profile)
      const page = one ? withNotice(one.listSessions(q), profile, one.notice) : s.stores.listAll(q)
      // the user's prices for unpriced usage (Settings → Prices), as on the Costs page
      const items = priceSessionRows(
        (p) => s.stores.get(p),
        page.items,
        () => readPriceOverrides(s.root)
      )
      return items === page.items ? page : { ...page, items }
    },
    'sessions.sources': ({ profile }) => ({
      sources: profile === 'all' ? s.stores.sourcesAll() : s.stores.get(profile).listSources()
    }),
    'sessions.get': ({ profile, sessionId }) => {
      const detail = s.stores.get(profile).getSessionDetail(sessionId)
      if (!detail) throw notFound(profile, sessionId)
      return priceSessionDetail(s.stores.get(profile), detail, readPriceOverrides(s.root))
    },
    'sessions.messages': ({ profile, sessionId, ...page }) => {
      const store = s.stores.get(profile)
      if (!store.getSession(sessionId)) throw notFound(profile, sessionId)
      return store.getMessages({ sessionId, ...page })
    },
    'sessions.messageText': ({ profile, sessionId, messageId, field, callIndex, offset, limit }) => {
      const text = s.stores.get(profile).getMessageText({ sessionId, messageId, field, callIndex }, offset, limit)
      if (!text) throw new CaduceusError('not_found', `No message ${messageId} in session '${sessionId}'`, 'messageId')
      return text
    },
    'sessions.search': ({ profile, query, limit, ...filters }) =>
      s.stores.searchAll({ query, limit, filters }, profile === 'all' ? undefined : profile),
    'sessions.update': async ({ profile, sessionId, title, archived, pinned }) => {
      const store = s.stores.get(profile)
      if (!store.getSession(sessionId)) throw notFound(profile, sessionId)
      // The title rules (length, uniqueness) answer as user errors on the title field (store/titles.ts); a write the
      // home refused (locked by another program, a read-only file) is no fault of the words typed and says so as it is.
      if (title !== undefined) await store.setTitle(sessionId, title, 'user')
      if (archived !== undefined) await store.setArchived(sessionId, archived)
      if (pinned !== undefined) await store.setPinned(sessionId, pinned)
      const summary = store.summary(sessionId)
      if (!summary) throw notFound(profile, sessionId)
      // the row as sessions.list shows it, custom price included, so an update never drops that label
      return priceSessionRows(
        (p) => s.stores.get(p),
        [summary],
        () => readPriceOverrides(s.root)
      )[0]!
    }
  }
}
