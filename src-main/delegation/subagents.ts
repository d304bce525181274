/**
 * `subagents.list` / `subagents.estimate` read models: durable rows (running, retained, tombstoned,
 * expired, failed) merged with the live in-process registry, plus transcript size and ledger cost.
 *
 * "Expired" vs "tombstoned": TTL pruning stamps `tombstoned_at` at prune time, which is always at or past
 * `retained_at + ttl`; a manual or cap tombstone happens before that (prune runs first on every lookup).
 */
import type {
  FollowUpEstimate,
  Money,
  PriceOverride,
  Subagent,
  SubagentList,
  SubagentQuery,
  SubagentState,
  Tokens
} from '@shared/contract'
import { homeOfDb, loadDelegationConfig } from './config'
import type { SessionStore } from '../store'
import { childPieces, ownPieces, querySource, type ProfileStore } from '../costs'
import type { LiveSubagentRegistry } from './live-registry'
import { moneyFromMicros, NO_COST } from '@shared/contract/money'
import { addTokens, ZERO_TOKENS } from '@shared/contract/tokens'
import { expandChildren } from './registry/retained'
import { foreignChildren, isForeignRow } from './foreign'
import { parseJson } from './registry/context'
import type { DelegationDb } from './types'

const FAILED = new Set(['error', 'failed', 'interrupted', 'stalled', 'cancelled'])
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/** A delegation as the store's repository returns it (camelCase record). */
type DelegationRecord = ReturnType<ReturnType<SessionStore['delegationRepo']>['listForSubagents']>[number]

function classify(r: DelegationRecord, ttlHours: number): SubagentState {
  if (r.state === 'running' || r.state === 'finalizing') return 'running'
  if (r.tombstonedAt !== null) {
    const expiry = r.retainedAt !== null ? r.retainedAt + ttlHours * 3600 : Infinity
    return r.tombstonedAt >= expiry - 1e-6 ? 'expired' : 'tombstoned'
  }
  if (r.retained === 1) return 'retained'
  if (FAILED.has(r.state)) return 'failed'
  if (r.state === 'completed') return 'completed'
  return 'unknown'
}

function transcript(store: DelegationDb, sessionId: string): { messages: number; chars: number } {
  if (!sessionId) return { messages: 0, chars: 0 }
  const size = store.delegationRepo().transcriptSize(sessionId)
  return { messages: n(size.messages), chars: n(size.chars) }
}

/**
 * The model a child ran with: the dispatch's record when it names one, else the child's session row (written by whoever
 * ran it — a Caduceus child inherits the parent's model and its manifest names none; upstream's records it at creation).
 */
function childModel(store: DelegationDb, named: string | null | undefined, childSessionId: string): string | null {
  if (named) return named
  return (childSessionId && store.getSession(childSessionId)?.model) || null
}

/**
 * A child's cost by the same rule the parent's cost breakdown and the Costs page use (costs/pieces.ts): its ledger
 * rows, or its own session cost when the ledger has none ("unledgered") — never "—" for a child the parent bills —
 * with price overrides applied and flagged.
 */
function childMoney(
  store: DelegationDb,
  parentSessionId: string | null,
  childSessionId: string,
  overrides: readonly PriceOverride[]
): { cost: Money; tokens: Tokens; custom: boolean } {
  const none = { cost: NO_COST, tokens: ZERO_TOKENS(), custom: false }
  if (!childSessionId) return none
  const src = querySource(store)
  const recs = parentSessionId
    ? childPieces(store, src, parentSessionId, overrides).filter((c) => c.childSessionId === childSessionId)
    : []
  if (!recs.length) {
    const row = src.session(childSessionId)
    if (!row) return none
    const pieces = ownPieces(src, row, overrides)
    return {
      cost: moneyFromMicros(pieces.map((p) => p.money)),
      tokens: {
        input: n(row.inputTokens),
        output: n(row.outputTokens),
        cacheRead: n(row.cacheReadTokens),
        cacheWrite: n(row.cacheWriteTokens),
        reasoning: n(row.reasoningTokens)
      },
      custom: pieces.some((p) => p.custom)
    }
  }
  const pieces = recs.flatMap((c) => c.pieces)
  // every kind, as the parent's breakdown counts them: an unledgered child (upstream's) has its cache reads too
  const tokens = ZERO_TOKENS()
  for (const c of recs) addTokens(tokens, c.tokens)
  return {
    cost: moneyFromMicros(pieces.map((p) => p.money)),
    tokens,
    custom: pieces.some((p) => p.custom)
  }
}

/** A single-child row's summary and error from its completion (a batch's are per task: not guessed here). */
function outcome(r: DelegationRecord): { summary: string | null; error: string | null } {
  const ev = parseJson<unknown>(r.eventJson, null)
  const e = ev && typeof ev === 'object' && !Array.isArray(ev) ? (ev as Record<string, unknown>) : {}
  if (e.is_batch === true) return { summary: null, error: null }
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null)
  return { summary: str(e.summary), error: str(e.error) }
}

/** A child session without an end that wrote nothing for this long is no longer taken as running. */
const STALE_AFTER_S = 15 * 60
const FAILED_ENDS = new Set([...FAILED, 'timeout', 'timed_out', 'aborted'])

/** A child session's state from the session alone: open and recently active, or how it ended. */
function sessionState(
  c: { endedAt: number | null; endReason: string | null; startedAt: number; lastActive: number | null },
  now: number
): SubagentState {
  if (c.endedAt === null) return now - Math.max(c.startedAt, c.lastActive ?? 0) <= STALE_AFTER_S ? 'running' : 'unknown'
  return c.endReason && FAILED_ENDS.has(c.endReason) ? 'failed' : 'completed'
}

export function listSubagents(
  stores: ProfileStore[],
  query: SubagentQuery,
  live?: LiveSubagentRegistry,
  overrides: readonly PriceOverride[] = []
): SubagentList {
  const scope = query.profile ?? 'all'
  const selected = stores.filter((s) => scope === 'all' || s.profile === scope)
  const items: Subagent[] = []
  const now = Date.now() / 1000
  let limits = { maxRetained: 10, ttlHours: 72 }
  for (const [i, { profile, store }] of selected.entries()) {
    const cfg = loadDelegationConfig(homeOfDb(store.path))
    const ttlHours = Math.max(1, cfg.retainedTtlHours)
    if (i === 0 || profile === 'default') limits = { maxRetained: Math.max(1, cfg.maxRetained), ttlHours }
    const rows = store.delegationRepo().listForSubagents(query.parentSessionId || undefined)
    const rowChildren = new Set<string>()
    const rowGoals = new Set<string>()
    for (const r of rows) {
      const state = classify(r, ttlHours)
      const foreign = isForeignRow(r)
      const children = foreign ? foreignChildren(store, r) : expandChildren(r).map((c) => ({ ...c, ...outcome(r) }))
      // a child some row names, or (a row without a manifest) that started with one of its goals, even when that
      // row links none of two candidates, is that row's: never listed again from its session
      for (const c of children) {
        if (c.childSessionId) rowChildren.add(c.childSessionId)
        if (foreign && c.goal) rowGoals.add(`${r.parentSessionId ?? ''}\0${c.goal}`)
      }
      if (!foreign && r.childSessionId) rowChildren.add(r.childSessionId)
      if (!query.includeTombstoned && (state === 'tombstoned' || state === 'expired')) continue
      for (const c of children) {
        const size = transcript(store, c.childSessionId)
        const money = childMoney(store, r.parentSessionId, c.childSessionId, overrides)
        items.push({
          profile,
          delegationId: r.delegationId,
          childId: c.childId || c.childSessionId,
          childSessionId: c.childSessionId,
          parentSessionId: r.parentSessionId,
          state,
          rawState: r.state,
          goal: c.goal ?? '',
          model: childModel(store, c.model, c.childSessionId),
          dispatchedAt: r.dispatchedAt,
          completedAt: r.completedAt,
          retainedAt: r.retainedAt,
          expiresAt: state === 'retained' && r.retainedAt !== null ? r.retainedAt + ttlHours * 3600 : null,
          tombstonedAt: r.tombstonedAt,
          transcriptMessages: size.messages,
          transcriptChars: size.chars,
          cost: money.cost,
          tokens: money.tokens,
          ...(money.custom ? { customPrice: true } : {}),
          summary: c.summary,
          error: c.error,
          ...(foreign ? { foreign: true } : {})
        })
      }
    }
    // Inline children have no durable row; show them as running from the live registry.
    for (const l of live?.list() ?? []) {
      if (l.profile !== profile) continue
      if (query.parentSessionId && l.parentSessionId !== query.parentSessionId) continue
      if (
        items.some(
          (it) =>
            it.profile === profile &&
            (it.childId === l.subagentId || (l.childSessionId && it.childSessionId === l.childSessionId)) &&
            it.state === 'running'
        )
      )
        continue
      const size = transcript(store, l.childSessionId ?? '')
      items.push({
        profile,
        delegationId: l.delegationId ?? '',
        childId: l.subagentId,
        childSessionId: l.childSessionId ?? '',
        parentSessionId: l.parentSessionId ?? null,
        state: 'running',
        rawState: 'running',
        goal: l.goal ?? '',
        model: childModel(store, l.model, l.childSessionId ?? ''),
        dispatchedAt: l.startedAt ?? null,
        completedAt: null,
        retainedAt: null,
        expiresAt: null,
        tombstonedAt: null,
        transcriptMessages: size.messages,
        transcriptChars: size.chars,
        cost: NO_COST,
        tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
      })
    }
    // Children no delegation row lists (upstream's synchronous delegate tool writes none), read from their sessions.
    const listed = new Set(items.filter((it) => it.profile === profile).map((it) => it.childSessionId))
    for (const c of store.delegationRepo().delegateChildSessions(query.parentSessionId || undefined)) {
      if (listed.has(c.sessionId) || rowChildren.has(c.sessionId)) continue
      if (rowGoals.has(`${c.parentSessionId ?? ''}\0${c.firstUser ?? ''}`)) continue
      const state = sessionState(c, now)
      const money = childMoney(store, c.parentSessionId, c.sessionId, overrides)
      items.push({
        profile,
        delegationId: '',
        childId: c.sessionId,
        childSessionId: c.sessionId,
        parentSessionId: c.parentSessionId,
        state,
        rawState: c.endReason ?? (state === 'running' ? 'running' : 'unknown'),
        goal: c.firstUser ?? c.title ?? '',
        model: c.model,
        dispatchedAt: c.startedAt,
        completedAt: c.endedAt,
        retainedAt: null,
        expiresAt: null,
        tombstonedAt: null,
        transcriptMessages: n(c.messages),
        transcriptChars: n(c.chars),
        cost: money.cost,
        tokens: money.tokens,
        ...(money.custom ? { customPrice: true } : {}),
        summary: null,
        error: state === 'failed' ? c.endReason : null,
        foreign: true
      })
    }
  }
  return {
    items,
    maxRetained: limits.maxRetained,
    ttlHours: limits.ttlHours,
    ...(live ? { spawnPaused: live.isSpawnPaused() } : {})
  }
}

/** Rough size/cost of resuming a child: its transcript re-sent as prompt (≈4 chars per token). */
export function estimateFollowUp(
  store: DelegationDb,
  childSessionId: string,
  price?: (inputTokens: number) => number | null
): FollowUpEstimate {
  const size = transcript(store, childSessionId)
  const estTokens = Math.ceil(size.chars / 4)
  let usd: number | null = null
  try {
    usd = price ? price(estTokens) : null
  } catch {
    usd = null // a price the table cannot give: shown as unknown
  }
  return {
    messages: size.messages,
    chars: size.chars,
    estTokens,
    estCost:
      typeof usd === 'number' && Number.isFinite(usd)
        ? { usd, status: 'estimated', complete: true }
        : estTokens === 0
          ? NO_COST
          : { usd: null, status: 'unpriced', complete: false }
  }
}
