/** The `fact_store` / `fact_feedback` tools: upstream names, parameters and JSON replies. */
import type { MemoryToolSchema } from '../../provider'
import { CATEGORIES, type FactStore, type RankOptions } from './store'

export const FACT_STORE_SCHEMA: MemoryToolSchema = {
  name: 'fact_store',
  description:
    'Long-term fact memory (local, structured). add: store a durable fact. search: find facts by meaning/keywords. probe: facts about one entity. ' +
    'related: facts about entities connected to one entity. reason: facts connecting several entities. contradict: stored facts that disagree with a statement. ' +
    'update / remove: edit or delete by fact_id. list: browse facts.',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: ['add', 'search', 'probe', 'related', 'reason', 'contradict', 'update', 'remove', 'list']
      },
      content: { type: 'string', description: 'Fact text (add, update, contradict).' },
      query: { type: 'string', description: 'Search text (search).' },
      entity: { type: 'string', description: 'Entity name (probe, related).' },
      entities: { type: 'array', items: { type: 'string' }, description: 'Entity names (reason).' },
      fact_id: { type: 'integer', description: 'Fact id (update, remove).' },
      category: { type: 'string', enum: [...CATEGORIES] },
      tags: { type: 'string', description: 'Comma-separated tags.' },
      trust_delta: { type: 'number', description: 'Trust adjustment (update).' },
      min_trust: { type: 'number', description: 'Minimum trust score (default 0.3).' },
      limit: { type: 'integer', description: 'Maximum results (default 10).' }
    },
    required: ['action']
  }
}

export const FACT_FEEDBACK_SCHEMA: MemoryToolSchema = {
  name: 'fact_feedback',
  description: 'Rate a recalled fact: helpful raises its trust, unhelpful lowers it.',
  parameters: {
    type: 'object',
    properties: { action: { type: 'string', enum: ['helpful', 'unhelpful'] }, fact_id: { type: 'integer' } },
    required: ['action', 'fact_id']
  }
}

export class ToolArgError extends Error {}
const missing = (name: string) => new ToolArgError(`Missing required argument: ${name}`)

function str(args: Record<string, unknown>, name: string, required = false): string | undefined {
  const v = args[name]
  if (typeof v === 'string' && v.trim()) return v.trim()
  if (required) throw missing(name)
  return undefined
}
function int(args: Record<string, unknown>, name: string, required = false): number | undefined {
  const v = typeof args[name] === 'string' ? Number(args[name]) : args[name]
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (required) throw missing(name)
  return undefined
}
function category(args: Record<string, unknown>): string | undefined {
  const c = str(args, 'category')
  if (c && !(CATEGORIES as readonly string[]).includes(c))
    throw new ToolArgError(`Invalid category: ${c} (one of ${CATEGORIES.join(', ')})`)
  return c
}

export function runFactStore(
  store: FactStore,
  args: Record<string, unknown>,
  defaults: { minTrust: number; hrrWeight: number; halfLifeDays: number }
): unknown {
  const action = str(args, 'action', true)!
  const minTrust = typeof args.min_trust === 'number' ? args.min_trust : defaults.minTrust
  const limit = Math.min(100, Math.max(1, int(args, 'limit') ?? 10))
  const rank: RankOptions = {
    minTrust,
    limit,
    category: category(args),
    hrrWeight: defaults.hrrWeight,
    halfLifeDays: defaults.halfLifeDays
  }
  const results = (r: unknown[]) => ({ results: r, count: r.length })
  switch (action) {
    case 'add': {
      const { factId, added } = store.add(
        str(args, 'content', true)!,
        rank.category ?? 'general',
        str(args, 'tags') ?? ''
      )
      return { fact_id: factId, status: added ? 'added' : 'exists' }
    }
    case 'search':
      return results(store.search(str(args, 'query', true)!, rank))
    case 'probe':
      return results(store.probe(str(args, 'entity', true)!, rank))
    case 'related':
      return results(store.related(str(args, 'entity', true)!, rank))
    case 'reason': {
      const list = Array.isArray(args.entities)
        ? args.entities.filter((e): e is string => typeof e === 'string' && e.trim().length > 0)
        : []
      if (list.length === 0) throw missing('entities')
      return results(store.reason(list, rank))
    }
    case 'contradict':
      return results(store.contradict(str(args, 'content') ?? str(args, 'query', true)!, rank))
    case 'update': {
      const factId = int(args, 'fact_id', true)!
      const delta =
        typeof args.trust_delta === 'number' && Number.isFinite(args.trust_delta) ? args.trust_delta : undefined
      return {
        updated: store.update(factId, {
          content: str(args, 'content'),
          category: rank.category ?? undefined,
          tags: typeof args.tags === 'string' ? args.tags : undefined,
          trustDelta: delta
        })
      }
    }
    case 'remove':
      return { removed: store.remove(int(args, 'fact_id', true)!) }
    case 'list': {
      const facts = store.list({ category: rank.category, minTrust, limit })
      return { facts, count: facts.length }
    }
    default:
      throw new ToolArgError(`Unknown action: ${action}`)
  }
}

export function runFactFeedback(store: FactStore, args: Record<string, unknown>): unknown {
  const action = str(args, 'action', true)!
  const factId = int(args, 'fact_id', true)!
  if (action !== 'helpful' && action !== 'unhelpful') throw new ToolArgError(`Unknown action: ${action}`)
  const row = store.feedback(factId, action === 'helpful')
  if (!row) throw new ToolArgError(`Unknown fact_id: ${factId}`)
  return { fact_id: factId, trust_score: row.trust_score, helpful_count: row.helpful_count }
}
