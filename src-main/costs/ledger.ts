/**
 * Persisted child-usage attribution (hermes-spec §2.6): one `delegation_child_usage` row per finished
 * child, so a parent's subagent cost can be re-applied after restart and the cost views can split a
 * session's spend into own vs delegated.
 */
import type { SessionStore } from '../store'
import { parseJsonOr } from '@shared/contract/errors'

export interface ChildUsage {
  /** null = unpriced (never recorded as $0). */
  cost_usd?: number | null
  tokens?: { input?: number; output?: number; [k: string]: unknown }
  api_calls?: number
  status?: string | null
  model?: string | null
  [k: string]: unknown
}

export interface ChildUsageAttribution {
  parentTurnId: string
  childSessionId: string
  usage: ChildUsage
  aggregate: Record<string, unknown> | null
  createdAt: number
}

export async function recordChildUsageAttribution(
  store: SessionStore,
  rec: {
    parentSessionId: string
    parentTurnId?: string
    childSessionId?: string
    usage: ChildUsage
    aggregate?: Record<string, unknown> | null
    now?: number
  }
): Promise<void> {
  if (typeof rec.parentSessionId !== 'string' || !rec.parentSessionId) return
  const aggregate = rec.aggregate && Object.keys(rec.aggregate).length > 0 ? JSON.stringify(rec.aggregate) : null
  await store.write((tx) => {
    store.delegationRepo().insertChildUsage(tx, {
      parentSessionId: rec.parentSessionId,
      parentTurnId: rec.parentTurnId ?? '',
      childSessionId: rec.childSessionId ?? '',
      usageJson: JSON.stringify(rec.usage ?? {}),
      aggregateJson: aggregate,
      createdAt: rec.now ?? Date.now() / 1000
    })
  })
}

const asObject = (text: string | null): Record<string, unknown> | null => {
  if (!text) return null
  const v = parseJsonOr(text, null)
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

export function loadChildUsageAttributions(store: SessionStore, parentSessionId: string): ChildUsageAttribution[] {
  if (typeof parentSessionId !== 'string' || !parentSessionId) return []
  return store
    .delegationRepo()
    .listChildUsage(parentSessionId)
    .map((r) => ({
      parentTurnId: r.parentTurnId,
      childSessionId: r.childSessionId,
      usage: (asObject(r.usageJson) ?? {}) as ChildUsage,
      aggregate: asObject(r.aggregateJson),
      createdAt: r.createdAt
    }))
}
