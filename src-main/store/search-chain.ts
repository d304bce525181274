/**
 * Search over compression chains, each message once. A continuation holds copies of some of its parent's messages
 * (upstream's copies of the protected head before its summary, the kept tail after it), so a word said once matches
 * two rows. The chain view (read-messages.ts leftOut, chain-carried.ts) shows one of each pair, and search lands on
 * that one: a hit opens the transcript at its row, and a hit on the row the view leaves out would open the chain with
 * the message twice on screen (the page shows the row it was opened at) or land away from where the view shows it.
 * So a head copy's hit is the parent's row, where it was said, and a carried tail's hit is the continuation's copy,
 * where the conversation went on from. A message said twice is two rows with no copy between them: two hits.
 *
 * Only the page's sessions are looked at (the pairs are found as the chain view finds them, per part): the cost
 * follows the hits shown, never the number of chains in the home.
 */
import type Database from 'better-sqlite3'
import { carriedPairs, openingCopyPairs } from './chain-carried'
import { lineageRow, nextPart, type LineageRow } from './lineage'
import { stmt } from './stmt-cache'

/** A row the chain view leaves out of its part: its session, and the row it shows instead. */
export interface LeftOut {
  sessionId: string
  shown: number
}

/**
 * For the sessions `sessionIds`: each row the chain view leaves out of its part → where it is and the row the view
 * shows instead (in the next part or the parent). One statement picks the sessions in a chain; only those are read,
 * and a pair of parts only when the other one matched too (`matches`): otherwise no row of it gives way.
 */
export function shownInstead(
  db: Database.Database,
  sessionIds: Iterable<string>,
  matches: (sessionId: string) => boolean
): Map<number, LeftOut> {
  const out = new Map<number, LeftOut>()
  const inChain = stmt<Pick<LineageRow, 'id'>>(
    db,
    `SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?))
      AND (parent_session_id IS NOT NULL OR end_reason = 'compression')`
  ).all(JSON.stringify([...new Set(sessionIds)]))
  for (const { id } of inChain) {
    const row = lineageRow(db, id)
    if (!row) continue
    const next = nextPart(db, row)
    if (next && matches(next))
      for (const [left, shown] of carriedPairs(db, id, next)) out.set(left, { sessionId: id, shown })
    if (row.parent_session_id && matches(row.parent_session_id))
      for (const [left, shown] of openingCopyPairs(db, id)) out.set(left, { sessionId: id, shown })
  }
  return out
}

/**
 * The row a search shows for `id`: the row the chain view shows for it (followed while that one is left out too: a
 * parent's row its continuation carries that is itself a copy), or `id` itself — also where the pairs lead back to
 * it (a degenerate chain whose parts leave each other's rows out), so a message is never left without a hit.
 */
export function shownRow(instead: Map<number, LeftOut>, id: number): number {
  const seen = new Set([id])
  let at = id
  for (let next = instead.get(at)?.shown; next !== undefined; next = instead.get(at)?.shown) {
    if (seen.has(next)) return id
    seen.add(next)
    at = next
  }
  return at
}
