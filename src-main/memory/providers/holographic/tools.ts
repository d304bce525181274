/** The `fact_store` / `fact_feedback` tools: upstream names, parameters and JSON replies. */
import type { MemoryToolSchema } from '../../provider'
import { contradict, probe, reason, related, search, type SearchOptions } from './retrieval'
import { CATEGORIES, type FactStore } from './store'

export const FACT_STORE_SCHEMA: MemoryToolSchema = {
  name: 'fact_store',
  description:
    'Long-term fact memory (local, structured). add: store a durable fact. search: find facts by keywords. probe: facts about one entity. ' +
    'related: facts an entity appears in, in any role. reason: facts connecting several entities at once. contradict: pairs of stored facts about the same entities that disagree. ' +
    'update / remove: edit or delete by fact_id. list: browse facts. Probe or reason before answering questions about the user.',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: ['add', 'search', 'probe', 'related', 'reason', 'contradict', 'update', 'remove', 'list']
      },
      content: { type: 'string', description: 'Fact text (add, update).' },
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
/**
 * The schema names four categories, but upstream's store takes any string it is given (and keeps a bank for it), so a
 * model's 'preference' is stored there and found again by that name: refusing it here would fail the call upstream
 * answers, and leave facts upstream filed under such a name unreachable by category.
 */
function category(args: Record<string, unknown>): string | undefined {
  const c = args.category
  return typeof c === 'string' && c.trim() ? c : undefined
}

export function runFactStore(
  store: FactStore,
  args: Record<string, unknown>,
  defaults: { minTrust: number; hrrWeight: number; halfLifeDays: number }
): unknown {
  const action = str(args, 'action', true)!
  const minTrust = typeof args.min_trust === 'number' ? args.min_trust : defaults.minTrust
  const limit = Math.min(100, Math.max(1, int(args, 'limit') ?? 10))
  const opts: SearchOptions = { ...defaults, minTrust, limit, category: category(args) }
  const results = (r: unknown[]) => ({ results: r, count: r.length })
  switch (action) {
    case 'add':
      return {
        fact_id: store.add(
          str(args, 'content', true)!,
          opts.category ?? 'general',
          typeof args.tags === 'string' ? args.tags : ''
        ),
        status: 'added'
      }
    case 'search':
      return results(search(store, str(args, 'query', true)!, opts))
    case 'probe':
      return results(probe(store, str(args, 'entity', true)!, opts))
    case 'related':
      return results(related(store, str(args, 'entity', true)!, opts))
    case 'reason': {
      const list = Array.isArray(args.entities)
        ? args.entities.filter((e): e is string => typeof e === 'string' && e.trim().length > 0)
        : []
      if (list.length === 0) throw new ToolArgError("reason requires 'entities' list")
      return results(reason(store, list, opts))
    }
    case 'contradict':
      return results(contradict(store, opts.category, limit))
    case 'update': {
      const factId = int(args, 'fact_id', true)!
      const delta =
        typeof args.trust_delta === 'number' && Number.isFinite(args.trust_delta) ? args.trust_delta : undefined
      return {
        updated: store.update(factId, {
          content: typeof args.content === 'string' ? args.content : undefined,
          category: opts.category ?? undefined,
          tags: typeof args.tags === 'string' ? args.tags : undefined,
          trustDelta: delta
        })
      }
    }
    case 'remove':
      return { removed: store.remove(int(args, 'fact_id', true)!) }
    case 'list': {
      const facts = store.list({
        category: opts.category,
        minTrust: typeof args.min_trust === 'number' ? minTrust : 0,
        limit
      })
      return { facts, count: facts.length }
    }
    default:
      throw new ToolArgError(`Unknown action: ${action}`)
  }
}

/** `{fact_id, old_trust, new_trust, helpful_count}` as upstream replies. */
export function runFactFeedback(store: FactStore, args: Record<string, unknown>): unknown {
  const action = str(args, 'action', true)!
  const factId = int(args, 'fact_id', true)!
  if (action !== 'helpful' && action !== 'unhelpful') throw new ToolArgError(`Unknown action: ${action}`)
  const reply = store.feedback(factId, action === 'helpful')
  if (!reply) throw new ToolArgError(`fact_id ${factId} not found`)
  return reply
}
