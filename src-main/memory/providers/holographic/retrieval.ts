/**
 * Recall over the fact store with upstream's rules, so an action answers the same on either side:
 * search = FTS5 candidates re-ranked by normalised rank, token overlap and HRR similarity, times trust;
 * probe / related / reason = HRR algebra over every fact that has a vector (trust-weighted, no
 * min-trust filter), falling back to search when no fact has one; contradict = pairs sharing entities
 * whose vectors diverge. Scores are `(similarity + 1) / 2 × trust`.
 */
import {
  bind,
  bytesToPhases,
  encodeAtom,
  encodeText,
  ROLE_CONTENT,
  ROLE_ENTITY,
  similarity,
  unbind,
  type Phases
} from './hrr'
import type { FactRow, FactStore, VectorRow } from './store'
import { ftsQuery, jaccard, tokens } from './text'

export interface SearchOptions {
  category?: string | null
  minTrust: number
  limit: number
  hrrWeight: number
  halfLifeDays: number
}

export type Scored = FactRow & { score: number }
export type SearchHit = Scored & { fts_rank: number }

const FTS_WEIGHT = 0.4
const JACCARD_WEIGHT = 0.3
/** The minimum trust upstream's vector actions use when they fall back to keyword search. */
const FALLBACK_MIN_TRUST = 0.3

const byScore = <T extends { score: number }>(rows: T[], limit: number) =>
  rows.sort((a, b) => b.score - a.score).slice(0, limit)

export function search(store: FactStore, query: string, o: SearchOptions): SearchHit[] {
  const rows = store.ftsCandidates(ftsQuery(query), { category: o.category, minTrust: o.minTrust, limit: o.limit * 3 })
  if (rows.length === 0) return []
  const raw = rows.map((r) => Math.abs(r.fts_rank_raw))
  const top = Math.max(Math.max(...raw), 1e-6)
  const q = tokens(query)
  let queryVec: Phases | null = null
  const hits = rows.map(({ hrr_vector, fts_rank_raw: _raw, ...fact }, i) => {
    const fts = raw[i]! / top
    const overlap = jaccard(q, new Set([...tokens(fact.content), ...tokens(fact.tags)]))
    const vec = o.hrrWeight > 0 ? bytesToPhases(hrr_vector) : null
    let hrr = 0.5 // neutral without a vector
    if (vec) {
      queryVec ??= encodeText(query, store.dim)
      if (vec.length === queryVec.length) hrr = (similarity(queryVec, vec) + 1) / 2
    }
    let score = (FTS_WEIGHT * fts + JACCARD_WEIGHT * overlap + o.hrrWeight * hrr) * fact.trust_score
    if (o.halfLifeDays > 0) score *= decay(fact.updated_at || fact.created_at, o.halfLifeDays)
    return { ...fact, fts_rank: fts, score }
  })
  return byScore(hits, o.limit)
}

/** Facts where the entity plays the entity role: unbind (entity ⊛ role) and compare with the content. */
export function probe(store: FactStore, entity: string, o: SearchOptions) {
  const { category, limit } = o
  const key = bind(encodeAtom(entity.toLowerCase(), store.dim), encodeAtom(ROLE_ENTITY, store.dim))
  if (category) {
    const bank = store.bankVector(category)
    if (bank && bank.length === store.dim) {
      const extracted = unbind(bank, key)
      return scoreFacts(store.vectorFacts(category), store.dim, limit, (v) => similarity(extracted, v))
    }
  }
  const facts = store.vectorFacts(category)
  if (facts.length === 0) return fallback(store, entity, o)
  const roleContent = encodeAtom(ROLE_CONTENT, store.dim)
  return scoreFacts(facts, store.dim, limit, (v, f) =>
    similarity(unbind(v, key), bind(encodeText(f.content, store.dim), roleContent))
  )
}

/** Facts the entity's bare atom appears in, in either role. */
export function related(store: FactStore, entity: string, o: SearchOptions) {
  const { category, limit } = o
  const facts = store.vectorFacts(category)
  if (facts.length === 0) return fallback(store, entity, o)
  const atom = encodeAtom(entity.toLowerCase(), store.dim)
  const roleEntity = encodeAtom(ROLE_ENTITY, store.dim)
  const roleContent = encodeAtom(ROLE_CONTENT, store.dim)
  return scoreFacts(facts, store.dim, limit, (v) => {
    const residual = unbind(v, atom)
    return Math.max(similarity(residual, roleEntity), similarity(residual, roleContent))
  })
}

/** Facts where EVERY entity is structurally present: the weakest entity's similarity decides. */
export function reason(store: FactStore, entities: string[], o: SearchOptions) {
  const { category, limit } = o
  const facts = store.vectorFacts(category)
  if (facts.length === 0) return fallback(store, entities.join(' '), o)
  const roleEntity = encodeAtom(ROLE_ENTITY, store.dim)
  const roleContent = encodeAtom(ROLE_CONTENT, store.dim)
  const keys = entities.map((e) => bind(encodeAtom(e.toLowerCase(), store.dim), roleEntity))
  return scoreFacts(facts, store.dim, limit, (v) => Math.min(...keys.map((k) => similarity(unbind(v, k), roleContent))))
}

const CONTRADICT_MAX_FACTS = 500
const round3 = (n: number) => Math.round(n * 1000) / 1000

/** Pairs of facts about the same entities (overlap ≥ 0.3) whose vectors say different things. */
export function contradict(store: FactStore, category: string | null | undefined, limit: number, threshold = 0.3) {
  let facts = store.vectorFacts(category).filter((f) => f.vector?.length === store.dim)
  if (facts.length < 2) return []
  if (facts.length > CONTRADICT_MAX_FACTS)
    facts = [...facts]
      .sort((a, b) => String(b.updated_at || b.created_at).localeCompare(String(a.updated_at || a.created_at)))
      .slice(0, CONTRADICT_MAX_FACTS)
  const names = new Map(
    facts.map((f) => [f.fact_id, new Set(store.entityNames(f.fact_id).map((n) => n.toLowerCase()))])
  )
  const clean = ({ fact_id, content, category, tags, trust_score, created_at, updated_at }: VectorRow) => ({
    fact_id,
    content,
    category,
    tags,
    trust_score,
    created_at,
    updated_at
  })
  const out = []
  for (let i = 0; i < facts.length; i++)
    for (let j = i + 1; j < facts.length; j++) {
      const a = facts[i]!
      const b = facts[j]!
      const ea = names.get(a.fact_id)!
      const eb = names.get(b.fact_id)!
      if (ea.size === 0 || eb.size === 0) continue
      const shared = [...ea].filter((n) => eb.has(n))
      const overlap = shared.length / new Set([...ea, ...eb]).size
      if (overlap < 0.3) continue
      const sim = similarity(a.vector!, b.vector!)
      const score = overlap * (1 - (sim + 1) / 2)
      if (score >= threshold)
        out.push({
          fact_a: clean(a),
          fact_b: clean(b),
          entity_overlap: round3(overlap),
          content_similarity: round3(sim),
          contradiction_score: round3(score),
          shared_entities: shared.sort()
        })
    }
  return out.sort((x, y) => y.contradiction_score - x.contradiction_score).slice(0, limit)
}

function scoreFacts(facts: VectorRow[], dim: number, limit: number, sim: (v: Phases, f: FactRow) => number): Scored[] {
  const scored: Scored[] = []
  for (const { vector, ...fact } of facts) {
    // A vector of another width (a store re-dimensioned by hand) cannot be compared; it scores as unrelated.
    const s = vector && vector.length === dim ? sim(vector, fact) : 0
    scored.push({ ...fact, score: ((s + 1) / 2) * fact.trust_score })
  }
  return byScore(scored, limit)
}

function fallback(store: FactStore, query: string, o: SearchOptions) {
  return search(store, query, { ...o, minTrust: FALLBACK_MIN_TRUST })
}

function decay(stamp: string | null | undefined, halfLifeDays: number): number {
  if (!stamp) return 1
  const at = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(stamp) ? stamp.replace(' ', 'T') : `${stamp.replace(' ', 'T')}Z`)
  if (!Number.isFinite(at)) return 1
  const days = (Date.now() - at) / 86_400_000
  return days < 0 ? 1 : Math.pow(0.5, days / halfLifeDays)
}
