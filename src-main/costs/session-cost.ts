/**
 * Cost read models for the contract (`costs.session`, `costs.summary`): a session's own spend, its delegated
 * children's spend (the `delegation_child_usage` ledger), and inclusive = both. Every number is a sum of the
 * same micro-dollar pieces (pieces.ts), so the totals agree however they are grouped.
 */
import { moneyFromMicros } from '@shared/contract/money'
import { addTokens, ZERO_TOKENS } from '@shared/contract/tokens'
import { CaduceusError, type Money, type PriceOverride, type SessionCost, type Tokens } from '@shared/contract'
import type { SessionStore } from '../store'
import { childPieces, ownPieces, querySource, type Piece } from './pieces'

export interface ProfileStore {
  profile: string
  store: SessionStore
}

const moneyOf = (pieces: Piece[]): Money => moneyFromMicros(pieces.map((p) => p.money))

/** One session's cost (Session page, Subagents page): all time, price overrides applied and flagged. */
export function sessionCost(
  store: SessionStore,
  profile: string,
  sessionId: string,
  overrides: readonly PriceOverride[] = []
): SessionCost {
  const row = store.costRepo().session(sessionId)
  if (!row) throw new CaduceusError('not_found', `Unknown session: ${sessionId}`, 'sessionId')
  const src = querySource(store)
  const own = ownPieces(src, row, overrides)
  const kids = childPieces(store, src, sessionId, overrides)
  const children = kids.map((c) => ({
    childSessionId: c.childSessionId,
    parentTurnId: c.parentTurnId,
    status: c.status,
    apiCalls: c.apiCalls,
    cost: moneyOf(c.pieces),
    tokens: c.tokens,
    createdAt: c.createdAt,
    ...(c.pieces.some((p) => p.custom) ? { customPrice: true } : {})
  }))
  const models = new Map<string, { pieces: Piece[]; tokens: Tokens }>()
  for (const p of own) {
    const m = models.get(p.model) ?? { pieces: [], tokens: ZERO_TOKENS() }
    m.pieces.push(p)
    addTokens(m.tokens, p.tokens)
    models.set(p.model, m)
  }
  const turns = new Map<string, Piece[]>()
  for (const c of kids) turns.set(c.parentTurnId, [...(turns.get(c.parentTurnId) ?? []), ...c.pieces])
  const allKids = kids.flatMap((c) => c.pieces)
  const custom = [...own, ...allKids].some((p) => p.custom)
  return {
    profile,
    sessionId,
    own: moneyOf(own),
    children,
    childrenTotal: moneyOf(allKids),
    inclusive: moneyOf([...own, ...allKids]),
    perModel: [...models].map(([model, m]) => ({
      model,
      cost: moneyOf(m.pieces),
      tokens: m.tokens,
      ...(m.pieces.some((p) => p.custom) ? { customPrice: true } : {})
    })),
    perTurn: [...turns].map(([turnId, pieces]) => ({ turnId, childrenCost: moneyOf(pieces) })),
    ...(custom ? { customPrice: true } : {})
  }
}
