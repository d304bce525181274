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
interface LeftOut {
  sessionId: string
  shown: number
}

/**
 * The rows the chain view leaves out of the parts among a page's sessions, read one part at a time as the page is
 * walked (a part is read when a hit in it is reached, so only the sessions of the hits kept are). One statement
 * picks the sessions in a chain; a pair of parts is read only when the other one matched too (`matches`): otherwise
 * no row of it gives way.
 */
export class ChainCopies {
  /** Each row left out of a part read → where it is and the row the view shows instead (next part or parent). */
  readonly leftOut = new Map<number, LeftOut>()
  readonly #db: Database.Database
  readonly #matches: (sessionId: string) => boolean
  readonly #inChain: Set<string>

  constructor(db: Database.Database, sessionIds: Iterable<string>, matches: (sessionId: string) => boolean) {
    this.#db = db
    this.#matches = matches
    this.#inChain = new Set(
      stmt<Pick<LineageRow, 'id'>>(
        db,
        `SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?))
          AND (parent_session_id IS NOT NULL OR end_reason = 'compression')`
      )
        .all(JSON.stringify([...new Set(sessionIds)]))
        .map((r) => r.id)
    )
  }

  /** Whether any of the sessions is a part of a chain (none: nothing to read). */
  get any(): boolean {
    return this.#inChain.size > 0
  }

  /** Reads the rows `sessionId`'s part leaves out (once; nothing for a session in no chain). */
  read(sessionId: string): void {
    if (!this.#inChain.delete(sessionId)) return
    const db = this.#db
    const row = lineageRow(db, sessionId)
    if (!row) return
    const next = nextPart(db, row)
    if (next && this.#matches(next))
      for (const [left, shown] of carriedPairs(db, sessionId, next)) this.leftOut.set(left, { sessionId, shown })
    if (row.parent_session_id && this.#matches(row.parent_session_id))
      for (const [left, shown] of openingCopyPairs(db, sessionId)) this.leftOut.set(left, { sessionId, shown })
  }

  /**
   * The row a search shows for `id`: the row the chain view shows for it (followed while that one is left out too:
   * a parent's row its continuation carries that is itself a copy), or `id` itself — also where the pairs lead back
   * to it (a degenerate chain whose parts leave each other's rows out), so a message is never left without a hit.
   */
  shownRow(id: number): number {
    const seen = new Set([id])
    let at = id
    for (let next = this.leftOut.get(at)?.shown; next !== undefined; next = this.leftOut.get(at)?.shown) {
      if (seen.has(next)) return id
      seen.add(next)
      at = next
    }
    return at
  }
}
