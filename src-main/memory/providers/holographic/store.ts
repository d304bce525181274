/**
 * The fact store over `memory_store.db`: add/search/probe/related/reason/contradict/update/remove/list
 * and trust feedback. All SQL on this file lives here (a provider's own DB stays in its folder).
 */
import type Database from 'better-sqlite3'
import { extractEntities, ftsQuery, jaccard, tokens } from './text'

export const CATEGORIES = ['user_pref', 'project', 'tool', 'general'] as const
export type Category = (typeof CATEGORIES)[number]

export interface FactRow {
  fact_id: number
  content: string
  category: string
  tags: string
  trust_score: number
  retrieval_count: number
  helpful_count: number
  created_at: string
  updated_at: string
}

export interface ScoredFact {
  fact_id: number
  content: string
  category: string
  tags: string
  trust_score: number
  score: number
}

export interface RankOptions {
  minTrust: number
  limit: number
  category?: string | null
  hrrWeight?: number
  halfLifeDays?: number
}

const clamp01 = (n: number) => Math.min(1, Math.max(0, n))
const NEGATION = /\b(?:not|never|no|don't|doesn't|didn't|isn't|aren't|won't|can't|cannot|nobody|nothing)\b/i

export class FactStore {
  constructor(
    readonly db: Database.Database,
    private readonly defaultTrust = 0.5
  ) {}

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM facts').get() as { n: number }).n
  }

  /** Insert a fact (or find the identical one) and link its entities. */
  add(
    content: string,
    category: string = 'general',
    tags = '',
    trust = this.defaultTrust
  ): { factId: number; added: boolean } {
    const text = content.trim()
    return this.db.transaction(() => {
      const existing = this.db.prepare('SELECT fact_id FROM facts WHERE content = ?').get(text) as
        { fact_id: number } | undefined
      if (existing) return { factId: existing.fact_id, added: false }
      const info = this.db
        .prepare('INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)')
        .run(text, category || 'general', tags, clamp01(trust))
      const factId = Number(info.lastInsertRowid)
      this.linkEntities(factId, text)
      return { factId, added: true }
    })()
  }

  get(factId: number): FactRow | null {
    return (this.db.prepare('SELECT * FROM facts WHERE fact_id = ?').get(factId) as FactRow | undefined) ?? null
  }

  update(factId: number, patch: { content?: string; category?: string; tags?: string; trustDelta?: number }): boolean {
    return this.db.transaction(() => {
      const row = this.get(factId)
      if (!row) return false
      const content = patch.content?.trim() || row.content
      const trust = clamp01(row.trust_score + (patch.trustDelta ?? 0))
      this.db
        .prepare(
          'UPDATE facts SET content = ?, category = ?, tags = ?, trust_score = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?'
        )
        .run(content, patch.category ?? row.category, patch.tags ?? row.tags, trust, factId)
      if (content !== row.content) {
        this.db.prepare('DELETE FROM fact_entities WHERE fact_id = ?').run(factId)
        this.linkEntities(factId, content)
      }
      return true
    })()
  }

  remove(factId: number): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM fact_entities WHERE fact_id = ?').run(factId)
      return this.db.prepare('DELETE FROM facts WHERE fact_id = ?').run(factId).changes === 1
    })()
  }

  /** helpful +0.05, unhelpful −0.10, clamped to [0, 1]. */
  feedback(factId: number, helpful: boolean): FactRow | null {
    const row = this.get(factId)
    if (!row) return null
    this.db
      .prepare(
        'UPDATE facts SET trust_score = ?, helpful_count = helpful_count + ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?'
      )
      .run(clamp01(row.trust_score + (helpful ? 0.05 : -0.1)), helpful ? 1 : 0, factId)
    return this.get(factId)
  }

  list(opts: { category?: string | null; minTrust: number; limit: number }): FactRow[] {
    const where = ['trust_score >= ?']
    const args: unknown[] = [opts.minTrust]
    if (opts.category) {
      where.push('category = ?')
      args.push(opts.category)
    }
    return this.db
      .prepare(`SELECT * FROM facts WHERE ${where.join(' AND ')} ORDER BY trust_score DESC, fact_id DESC LIMIT ?`)
      .all(...args, opts.limit) as FactRow[]
  }

  /** FTS candidates (OR-joined tokens) above min trust, re-ranked by FTS rank, token overlap and trust. */
  search(query: string, opts: RankOptions): ScoredFact[] {
    const match = ftsQuery(query)
    if (!match) return []
    const rows = this.db
      .prepare(
        `SELECT f.*, bm25(facts_fts) AS rank FROM facts_fts JOIN facts f ON f.fact_id = facts_fts.rowid
         WHERE facts_fts MATCH ? AND f.trust_score >= ? ${opts.category ? 'AND f.category = ?' : ''} ORDER BY rank LIMIT 200`
      )
      .all(match, opts.minTrust, ...(opts.category ? [opts.category] : [])) as Array<FactRow & { rank: number }>
    const ranked = this.rank(rows, tokens(query), opts)
    this.touchRetrieved(ranked.map((r) => r.fact_id))
    return ranked
  }

  /** Facts linked to an entity (by name or alias). */
  probe(entity: string, opts: RankOptions): ScoredFact[] {
    const ids = this.entityIds(entity)
    if (ids.length === 0) return []
    const rows = this.factsOfEntities(ids, opts.minTrust)
    return this.rank(
      rows.map((r) => ({ ...r, rank: -1 })),
      tokens(entity),
      opts
    )
  }

  /** Facts about entities that co-occur with `entity`, excluding the entity's own facts. */
  related(entity: string, opts: RankOptions): ScoredFact[] {
    const ids = this.entityIds(entity)
    if (ids.length === 0) return []
    const own = new Set(this.factsOfEntities(ids, 0).map((f) => f.fact_id))
    const ph = ids.map(() => '?').join(',')
    const neighbours = (
      this.db
        .prepare(
          `SELECT DISTINCT fe2.entity_id AS id FROM fact_entities fe1 JOIN fact_entities fe2 ON fe1.fact_id = fe2.fact_id
                WHERE fe1.entity_id IN (${ph}) AND fe2.entity_id NOT IN (${ph})`
        )
        .all(...ids, ...ids) as Array<{ id: number }>
    ).map((r) => r.id)
    if (neighbours.length === 0) return []
    const rows = this.factsOfEntities(neighbours, opts.minTrust).filter((f) => !own.has(f.fact_id))
    return this.rank(
      rows.map((r) => ({ ...r, rank: -1 })),
      tokens(entity),
      opts
    )
  }

  /** Facts that connect ALL the given entities (falls back to any of them when none connects all). */
  reason(entities: string[], opts: RankOptions): ScoredFact[] {
    const groups = entities.map(
      (e) => new Set(this.factsOfEntities(this.entityIds(e), opts.minTrust).map((f) => f.fact_id))
    )
    if (groups.length === 0) return []
    let ids = [...groups[0]!].filter((id) => groups.every((g) => g.has(id)))
    if (ids.length === 0) ids = [...new Set(groups.flatMap((g) => [...g]))]
    const rows = ids.map((id) => this.get(id)).filter((r): r is FactRow => r !== null)
    return this.rank(
      rows.map((r) => ({ ...r, rank: -1 })),
      tokens(entities.join(' ')),
      opts
    )
  }

  /** Stored facts that look like they disagree with `statement`: same subject, opposite polarity. */
  contradict(statement: string, opts: RankOptions): ScoredFact[] {
    const negated = NEGATION.test(statement)
    const entityIds = new Set(extractEntities(statement).flatMap((e) => this.entityIds(e.name)))
    const linked = new Set(entityIds.size ? this.factsOfEntities([...entityIds], 0).map((f) => f.fact_id) : [])
    const qt = tokens(statement)
    const names = new Set(extractEntities(statement).flatMap((e) => tokens(e.name)))
    const predicate = qt.filter((t) => !names.has(t))
    const candidates = this.search(statement, { ...opts, limit: 50 })
    // Same subject (a shared entity) saying something about the same thing (a shared non-name word), or
    // simply close wording — with the opposite polarity.
    return candidates
      .filter((c) => c.content.trim() !== statement.trim() && NEGATION.test(c.content) !== negated)
      .filter(
        (c) =>
          (linked.has(c.fact_id) && tokens(c.content).some((t) => predicate.includes(t))) ||
          jaccard(qt, tokens(c.content)) >= 0.3
      )
      .slice(0, opts.limit)
  }

  // ── internals ────────────────────────────────────────────────────────────────

  private rank(rows: Array<FactRow & { rank: number }>, queryTokens: string[], opts: RankOptions): ScoredFact[] {
    if (rows.length === 0) return []
    // bm25() is negative, lower = better: flip and normalise to [0, 1] over this candidate set.
    const flipped = rows.map((r) => Math.max(0, -r.rank))
    const top = Math.max(...flipped, 1e-9)
    const now = Date.now()
    const scored = rows.map((r, i) => {
      const fts = flipped[i]! / top
      const overlap = jaccard(queryTokens, tokens(`${r.content} ${r.tags}`))
      let score = (0.6 * fts + 0.4 * overlap) * r.trust_score
      if (opts.halfLifeDays && opts.halfLifeDays > 0) {
        const at = Date.parse(`${String(r.updated_at).replace(' ', 'T')}Z`)
        if (Number.isFinite(at)) score *= Math.pow(0.5, (now - at) / 86_400_000 / opts.halfLifeDays)
      }
      return {
        fact_id: r.fact_id,
        content: r.content,
        category: r.category,
        tags: r.tags,
        trust_score: r.trust_score,
        score: Math.round(score * 10_000) / 10_000
      }
    })
    return scored.sort((a, b) => b.score - a.score || b.trust_score - a.trust_score).slice(0, opts.limit)
  }

  private touchRetrieved(ids: number[]): void {
    if (ids.length === 0) return
    try {
      this.db
        .prepare(
          `UPDATE facts SET retrieval_count = retrieval_count + 1 WHERE fact_id IN (${ids.map(() => '?').join(',')})`
        )
        .run(...ids)
    } catch {
      // A busy file loses one retrieval count, never the recall itself.
    }
  }

  private entityIds(name: string): number[] {
    const n = name.trim().toLowerCase()
    if (!n) return []
    const rows = this.db.prepare('SELECT entity_id, name, aliases FROM entities').all() as Array<{
      entity_id: number
      name: string
      aliases: string
    }>
    return rows
      .filter((r) => r.name.toLowerCase() === n || r.aliases.split(',').some((a) => a.trim().toLowerCase() === n))
      .map((r) => r.entity_id)
  }

  private factsOfEntities(ids: number[], minTrust: number): FactRow[] {
    if (ids.length === 0) return []
    return this.db
      .prepare(
        `SELECT DISTINCT f.* FROM facts f JOIN fact_entities fe ON fe.fact_id = f.fact_id
                WHERE fe.entity_id IN (${ids.map(() => '?').join(',')}) AND f.trust_score >= ?`
      )
      .all(...ids, minTrust) as FactRow[]
  }

  private linkEntities(factId: number, content: string): void {
    for (const e of extractEntities(content)) {
      let id = this.entityIds(e.name)[0]
      if (id === undefined) {
        id = Number(
          this.db.prepare('INSERT INTO entities (name, aliases) VALUES (?, ?)').run(e.name, e.aliases.join(','))
            .lastInsertRowid
        )
      } else if (e.aliases.length) {
        const row = this.db.prepare('SELECT aliases FROM entities WHERE entity_id = ?').get(id) as { aliases: string }
        const merged = [
          ...new Set([
            ...row.aliases
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean),
            ...e.aliases
          ])
        ]
        this.db.prepare('UPDATE entities SET aliases = ? WHERE entity_id = ?').run(merged.join(','), id)
      }
      this.db.prepare('INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)').run(factId, id)
    }
  }
}
