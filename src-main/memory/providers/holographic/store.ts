/**
 * The fact store over `memory_store.db`, written the way upstream's holographic plugin writes it: every
 * fact carries its HRR vector (content and linked entities) and each category's `cat:<name>` bank is the
 * bundle of its facts' vectors, so upstream's vector actions see Caduceus's facts and the reverse.
 * All SQL on this file lives here (a provider's own DB stays in its folder); recall lives in retrieval.ts.
 */
import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { pyStrip } from '@shared/contract/py-text'
import { bundle, bytesToPhases, encodeFact, phasesToBytes, type Phases } from './hrr'
import { extractEntities } from './text'
import type { entities, facts, memoryBanks } from './tables'

export const CATEGORIES = ['user_pref', 'project', 'tool', 'general'] as const

type Fact = typeof facts.$inferSelect
/** A fact as the tools reply with it (no vector bytes). */
export type FactRow = Omit<Fact, 'hrr_vector'>
type EntityId = Pick<typeof entities.$inferSelect, 'entity_id'>
/** A fact with its vector decoded. */
export type VectorRow = FactRow & { vector: Phases | null }

const FACT_COLUMNS =
  'fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at'
// Python's max(0.0, min(1.0, n)): NaN loses to 1.0 in min(), so it clamps to 1.
const clamp01 = (n: number) => (Number.isNaN(n) ? 1 : Math.min(1, Math.max(0, n)))

/**
 * The store holds HRR vectors of another width than hrr_dim. Upstream would add the new width beside the
 * old and then fail every vector operation on the shared file ("operands could not be broadcast together");
 * Caduceus refuses before writing anything.
 */
class StoreWidthError extends Error {}

/**
 * What initialize would refuse about the width of the store at `path`, told without writing to it (the Memory page's
 * picker asks before any turn does): '' when there is no file, its vectors are all `dim` wide, or it cannot be read
 * just now (a lock, not a fact store): initialize opens it for real and says why then.
 */
export function storeWidthProblem(path: string, dim: number, nativeBinding?: string): string {
  if (!existsSync(path)) return ''
  let db: Database.Database | null = null
  try {
    // Not `readonly`: a read-only connection to a WAL file leaves its -wal / -shm behind in the profile, where the
    // last read-write connection to close removes them. query_only keeps this one from writing anything.
    db = new Database(path, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) })
    db.pragma('query_only = ON')
    new FactStore(db, 0.5, dim).assertWidth()
    return ''
  } catch (err) {
    return err instanceof StoreWidthError ? err.message : ''
  } finally {
    db?.close()
  }
}

export class FactStore {
  constructor(
    readonly db: Database.Database,
    private readonly defaultTrust = 0.5,
    readonly dim = 1024
  ) {}

  count(): number {
    return this.db.prepare<unknown[], number>('SELECT COUNT(*) FROM facts').pluck().get()!
  }

  /**
   * The widths of the vectors the file already holds (facts' `hrr_vector`, banks' `dim` and vector), and a
   * `StoreWidthError` unless they are all `dim`. An empty store (or one without vectors) takes any width.
   */
  assertWidth(): void {
    const widths = this.db
      .prepare<unknown[], { w: number }>(
        `SELECT length(hrr_vector) / 8 AS w FROM facts WHERE hrr_vector IS NOT NULL
           UNION SELECT dim FROM memory_banks UNION SELECT length(vector) / 8 FROM memory_banks`
      )
      .all()
      .map((r) => r.w)
    const other = widths.filter((w) => w !== this.dim)
    if (other.length === 0) return
    const held = [...new Set(widths)].sort((a, b) => a - b)
    throw new StoreWidthError(
      held.length === 1
        ? `memory_store.db holds ${held[0]}-wide HRR vectors but plugins.hermes-memory-store.hrr_dim is ${this.dim}: ` +
            `set hrr_dim to ${held[0]} in config.yaml (Caduceus will not write vectors of another width into this store)`
        : `memory_store.db holds HRR vectors of several widths (${held.join(', ')}) and hrr_dim is ${this.dim}: ` +
            `the store needs its vectors rebuilt at one width before Caduceus writes to it`
    )
  }

  /** Insert a fact (an identical one already stored keeps its id and row), link entities, vector, bank. */
  add(content: string, category = 'general', tags = ''): number {
    const text = pyStrip(content)
    if (!text) throw new Error('content must not be empty')
    return this.db.transaction(() => {
      this.assertWidth()
      const existing = this.db
        .prepare<unknown[], Pick<Fact, 'fact_id'>>('SELECT fact_id FROM facts WHERE content = ?')
        .get(text)
      if (existing) return existing.fact_id
      const info = this.db
        .prepare('INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)')
        .run(text, category, tags, clamp01(this.defaultTrust))
      const factId = Number(info.lastInsertRowid)
      this.linkEntities(factId, text)
      this.writeVector(factId, text)
      this.rebuildBank(category)
      return factId
    })()
  }

  get(factId: number): FactRow | null {
    return (
      this.db.prepare<unknown[], FactRow>(`SELECT ${FACT_COLUMNS} FROM facts WHERE fact_id = ?`).get(factId) ?? null
    )
  }

  update(factId: number, patch: { content?: string; category?: string; tags?: string; trustDelta?: number }): boolean {
    return this.db.transaction(() => {
      const row = this.get(factId)
      if (!row) return false
      const sets = ['updated_at = CURRENT_TIMESTAMP']
      const args: unknown[] = []
      const content = patch.content === undefined ? undefined : pyStrip(patch.content)
      if (content !== undefined) (sets.push('content = ?'), args.push(content))
      if (patch.tags !== undefined) (sets.push('tags = ?'), args.push(patch.tags))
      if (patch.category !== undefined) (sets.push('category = ?'), args.push(patch.category))
      if (patch.trustDelta !== undefined)
        (sets.push('trust_score = ?'), args.push(clamp01(row.trust_score + patch.trustDelta)))
      this.db.prepare(`UPDATE facts SET ${sets.join(', ')} WHERE fact_id = ?`).run(...args, factId)
      if (content !== undefined) {
        this.assertWidth()
        this.db.prepare('DELETE FROM fact_entities WHERE fact_id = ?').run(factId)
        this.linkEntities(factId, content)
        this.writeVector(factId, content)
      }
      // Upstream rebuilds only the (new) category's bank; the category a fact left is rebuilt too so its
      // bank never keeps a departed fact.
      this.rebuildBank(patch.category ?? row.category)
      if (patch.category !== undefined && patch.category !== row.category) this.rebuildBank(row.category)
      return true
    })()
  }

  remove(factId: number): boolean {
    return this.db.transaction(() => {
      const row = this.get(factId)
      if (!row) return false
      this.db.prepare('DELETE FROM fact_entities WHERE fact_id = ?').run(factId)
      this.db.prepare('DELETE FROM facts WHERE fact_id = ?').run(factId)
      this.rebuildBank(row.category)
      return true
    })()
  }

  /** helpful +0.05 (and one more helpful_count), unhelpful −0.10, clamped to [0, 1]. */
  feedback(factId: number, helpful: boolean) {
    const row = this.get(factId)
    if (!row) return null
    const next = clamp01(row.trust_score + (helpful ? 0.05 : -0.1))
    this.db
      .prepare(
        'UPDATE facts SET trust_score = ?, helpful_count = helpful_count + ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?'
      )
      .run(next, helpful ? 1 : 0, factId)
    return {
      fact_id: factId,
      old_trust: row.trust_score,
      new_trust: next,
      helpful_count: row.helpful_count + (helpful ? 1 : 0)
    }
  }

  list(opts: { category?: string | null; minTrust: number; limit: number }): FactRow[] {
    return this.db
      .prepare<unknown[], FactRow>(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE trust_score >= ? ${opts.category ? 'AND category = ?' : ''}
         ORDER BY trust_score DESC LIMIT ?`
      )
      .all(opts.minTrust, ...(opts.category ? [opts.category] : []), opts.limit)
  }

  /** FTS5 candidates above min trust, best rank first, with bm25 rank and vector. */
  ftsCandidates(match: string, opts: { category?: string | null; minTrust: number; limit: number }) {
    try {
      return this.db
        .prepare<unknown[], Fact & { fts_rank_raw: number }>(
          `SELECT f.*, facts_fts.rank AS fts_rank_raw FROM facts_fts JOIN facts f ON f.fact_id = facts_fts.rowid
           WHERE facts_fts MATCH ? ${opts.category ? 'AND f.category = ?' : ''} AND f.trust_score >= ?
           ORDER BY facts_fts.rank LIMIT ?`
        )
        .all(match, ...(opts.category ? [opts.category] : []), opts.minTrust, opts.limit)
    } catch {
      return [] // a query FTS5 cannot parse matches nothing
    }
  }

  /** Facts that have a vector (optionally of one category), in table order. */
  vectorFacts(category?: string | null): VectorRow[] {
    const rows = this.db
      .prepare<unknown[], FactRow & { hrr_vector: NonNullable<Fact['hrr_vector']> }>(
        `SELECT ${FACT_COLUMNS}, hrr_vector FROM facts WHERE hrr_vector IS NOT NULL ${category ? 'AND category = ?' : ''}`
      )
      .all(...(category ? [category] : []))
    return rows.map(({ hrr_vector, ...f }) => ({ ...f, vector: bytesToPhases(hrr_vector) }))
  }

  bankVector(category: string): Phases | null {
    const row = this.db
      .prepare<unknown[], Pick<typeof memoryBanks.$inferSelect, 'vector'>>(
        'SELECT vector FROM memory_banks WHERE bank_name = ?'
      )
      .get(`cat:${category}`)
    return row ? bytesToPhases(row.vector) : null
  }

  entityNames(factId: number): string[] {
    return this.db
      .prepare<unknown[], Pick<typeof entities.$inferSelect, 'name'>>(
        'SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id WHERE fe.fact_id = ?'
      )
      .all(factId)
      .map((r) => r.name)
  }

  /** Give every vector-less fact its vector (files written before vectors, or without numpy upstream). */
  backfillVectors(): number {
    const rows = this.db
      .prepare<unknown[], Pick<Fact, 'fact_id' | 'content' | 'category'>>(
        'SELECT fact_id, content, category FROM facts WHERE hrr_vector IS NULL'
      )
      .all()
    if (rows.length === 0) return 0
    this.db.transaction(() => {
      this.assertWidth()
      for (const r of rows) this.writeVector(r.fact_id, r.content)
      for (const c of new Set(rows.map((r) => r.category))) this.rebuildBank(c)
    })()
    return rows.length
  }

  // ── internals ────────────────────────────────────────────────────────────────

  private writeVector(factId: number, content: string): void {
    const v = encodeFact(content, this.entityNames(factId), this.dim)
    this.db.prepare('UPDATE facts SET hrr_vector = ? WHERE fact_id = ?').run(phasesToBytes(v), factId)
  }

  /**
   * The category's bank is the bundle of all its facts' vectors; no facts, no bank. A vector of another
   * width (written by another program since the last check) aborts the write: leaving it out would drop
   * that fact from the bank, and keeping it cannot be bundled.
   */
  private rebuildBank(category: string): void {
    const name = `cat:${category}`
    const vectors = this.db
      .prepare<unknown[], { hrr_vector: NonNullable<Fact['hrr_vector']> }>(
        'SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL'
      )
      .all(category)
      .map((r) => bytesToPhases(r.hrr_vector))
      .filter((v): v is Phases => v !== null)
    if (vectors.some((v) => v.length !== this.dim)) this.assertWidth()
    if (vectors.length === 0) {
      this.db.prepare('DELETE FROM memory_banks WHERE bank_name = ?').run(name)
      return
    }
    this.db
      .prepare(
        `INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
         ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
           fact_count = excluded.fact_count, updated_at = excluded.updated_at`
      )
      .run(name, phasesToBytes(bundle(vectors)), this.dim, vectors.length)
  }

  /** Resolve each extracted name to an entity (name, case-insensitively, then aliases) or create it. */
  private linkEntities(factId: number, content: string): void {
    for (const name of extractEntities(content)) {
      const row =
        this.db.prepare<unknown[], EntityId>('SELECT entity_id FROM entities WHERE name LIKE ?').get(name) ??
        this.db
          .prepare<unknown[], EntityId>(
            "SELECT entity_id FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%'"
          )
          .get(name)
      const id =
        row?.entity_id ?? Number(this.db.prepare('INSERT INTO entities (name) VALUES (?)').run(name).lastInsertRowid)
      this.db.prepare('INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)').run(factId, id)
    }
  }
}
