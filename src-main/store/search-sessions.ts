/**
 * The sessions side of a search's matches (search-match.ts): which of them pass the filters' session conditions, and
 * each one's title and whether compression ended it, read together by id in one statement per set of matches. A
 * common CJK pair at 500k messages matches ~5,000 sessions: that statement costs ~4.3 CPU-ms, where a pass over every
 * session for the failing ones, a lookup of every matched id for the missing ones and another pass over every titled
 * session (8,000 rows into JS) cost ~8.3. */
import type Database from 'better-sqlite3'
import { rowsViaJson } from './json-rows'

/** A session's title, whether compression ended it, whether it passes the conditions; null: no such session row. */
type Facts = [title: string | null, compressed: number | null, pass: number] | null

export class MatchedSessions {
  private readonly facts = new Map<string, Facts>()

  /**
   * `conds`: SQL conditions on sessions `s` (search-match.ts sessionConditions), `args` their parameters; none: every
   * session passes, and rows whose session row is gone are kept.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly conds: readonly string[],
    private readonly args: readonly unknown[]
  ) {}

  /** The rows (session id first) whose session passes, decided once per session. */
  allowed<R extends [string, ...unknown[]]>(rows: R[]): R[] {
    if (!this.conds.length || !rows.length) return rows
    this.read(rows.map((r) => r[0]))
    const pass = (r: R) => !!this.facts.get(r[0])?.[2]
    return rows.every(pass) ? rows : rows.filter(pass)
  }

  /** Sets each matched session's title; returns the ones compression ended (only their chains go on past them). */
  describe(sessions: Map<string, { title: string | null }>): Set<string> {
    const continued = new Set<string>()
    this.read(sessions.keys())
    for (const [id, g] of sessions) {
      const f = this.facts.get(id)
      if (!f) continue
      g.title = f[0] ?? null
      if (f[1]) continued.add(id)
    }
    return continued
  }

  /** The facts of the sessions not read yet, by id. */
  private read(ids: Iterable<string>): void {
    const wanted = new Set<string>()
    for (const id of ids) if (!this.facts.has(id)) wanted.add(id)
    if (!wanted.size) return
    const pass = this.conds.length ? `COALESCE((${this.conds.join(' AND ')}), 0)` : '1'
    // looked up in the list's order (an `s.id IN (…)` sorts the list into a temporary index first)
    const rows = rowsViaJson<[string, string | null, number | null, number]>(
      this.db,
      `SELECT s.id AS c0, s.title AS c1, s.end_reason = 'compression' AS c2, ${pass} AS c3
        FROM json_each(?) j CROSS JOIN sessions s ON s.id = j.value`,
      4,
      [...this.args, JSON.stringify([...wanted])]
    )
    for (const [id, title, compressed, ok] of rows) this.facts.set(id, [title, compressed, ok])
    // messages another program left behind its session's delete: no session to pass or to name
    for (const id of wanted) if (!this.facts.has(id)) this.facts.set(id, null)
  }
}
