/**
 * The cross-process guard's view of the DB (hermes-spec §3.4): the live message_count / ended_at of a
 * session, read through the profile's store. Runs on every turn's cache-hit path, so it reads through
 * `readRow` (the store's two-column `sessionCounters` when available) and never throws.
 */
import type { SessionProbe } from './agent-cache'
import type { GatewayStore, GatewayStores } from './gateway-types'
import { countOf, readRow, rewindsOf } from './turn-helpers'
import { parseSessionKey } from './session-key'

export function storeProbe(stores: GatewayStores<GatewayStore>): SessionProbe {
  const rowFor = (key: string, sid: string) => {
    const parsed = parseSessionKey(key)
    if (!parsed) return null
    try {
      return readRow(stores.get(parsed.profile), sid)
    } catch {
      return null // unreadable: unknown to the probe (the agent cache reuses on unknown)
    }
  }
  return {
    messageCount: (key, sid) => countOf(rowFor(key, sid)),
    rewindCount: (key, sid) => rewindsOf(rowFor(key, sid)),
    isSessionEnded: (key, sid) => {
      const row = rowFor(key, sid)
      return row ? row.endedAt !== null && row.endedAt !== undefined : false
    }
  }
}
