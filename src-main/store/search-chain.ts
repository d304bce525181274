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
import { trimmedSql } from './sql'

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
  /** The parts read already. */
  readonly #done = new Set<string>()

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
    if (this.#inChain.delete(sessionId)) this.#read(sessionId)
  }

  #read(sessionId: string): void {
    if (this.#done.has(sessionId)) return
    this.#done.add(sessionId)
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
   * Reads the pairs of parts that may hold a matched row and its matched copy, for the matching sessions' counts
   * (`matched`: every matched row → its session; `continued`: the matching sessions compression ended). Reading a
   * pair costs ~0.3 ms (the chain view's pairing) and a common CJK word matches ~200 pairs of parts in a 500k-message
   * home, almost none holding a copy of a matched row; so a pair is read only where a matched row of the continuation
   * has a matched row of its parent's role and text (the same trimmed, or held whole in a merged row), as a copy has
   * (both programs copy a message's text as it was) — one small statement per pair of matching parts, over their
   * matched rows only. Measured there: ~8 ms more CPU on a ~53 ms search, against ~80 ms reading every pair.
   */
  readPairs(matched: Map<number, string>, continued: Set<string>): void {
    if (!continued.size) return
    const db = this.#db
    const children = stmt<{ child: string; parent: string }>(
      db,
      `SELECT id AS child, parent_session_id AS parent FROM sessions
        WHERE parent_session_id IN (SELECT value FROM json_each(?))`
    ).all(JSON.stringify([...continued]))
    if (!children.length) return
    const rowsOf = new Map<string, number[]>()
    for (const [id, sessionId] of matched) {
      const list = rowsOf.get(sessionId)
      if (list) list.push(id)
      else rowsOf.set(sessionId, [id])
    }
    const mayCopy = stmt(
      db,
      `SELECT 1 FROM messages a, messages b WHERE a.id IN (SELECT value FROM json_each(?))
        AND b.id IN (SELECT value FROM json_each(?)) AND a.role = b.role AND length(a.content) > 0
        AND (${trimmedSql('a.content')} = ${trimmedSql('b.content')} OR instr(b.content, a.content) > 0) LIMIT 1`
    )
    for (const { child, parent } of children) {
      const inParent = rowsOf.get(parent)
      const inChild = rowsOf.get(child)
      if (!inParent || !inChild) continue
      if (mayCopy.get(JSON.stringify(inParent), JSON.stringify(inChild)) === undefined) continue
      this.#read(parent)
      this.#read(child)
    }
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
