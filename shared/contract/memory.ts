import { z } from 'zod'
import { ProfileName, ProfileScope } from './common'
import { parseJsonOr } from './errors'

export const MemoryEventKind = z.enum([
  'tool_call',
  'prefetch',
  'sync',
  'write',
  'hook',
  'refusal',
  'error',
  'provider'
])
export type MemoryEventKind = z.infer<typeof MemoryEventKind>

/**
 * A recall (`prefetch` event) summary: `query "<question, JSON-quoted>" → <outcome>`, so the Memory page
 * and the turn's memory fold can show which question a recall answered without a column of its own.
 */
export const RECALL_QUERY_PREFIX = 'query '
export const RECALL_OUTCOME = ' → '

export function readRecallSummary(summary: string): { query: string | null; outcome: string } {
  const m = /^query ("(?:[^"\\]|\\.)*") → ([\s\S]*)$/.exec(summary)
  if (!m) return { query: null, outcome: summary }
  const query = parseJsonOr(m[1]!, null)
  return typeof query === 'string' ? { query, outcome: m[2]! } : { query: null, outcome: summary }
}

export const MemoryEvent = z.object({
  id: z.number().int(),
  profile: ProfileName,
  provider: z.string(),
  kind: MemoryEventKind,
  /** Hook or tool name (e.g. `prefetch`, `sync_turn`, `memory`). */
  name: z.string(),
  sessionId: z.string().nullable(),
  turnId: z.string().nullable(),
  ok: z.boolean(),
  latencyMs: z.number().nullable(),
  /** Short human summary: what was recalled/injected/written. Never contains secrets. */
  summary: z.string(),
  /** Size in characters of injected or written content. */
  size: z.number().int().nullable(),
  at: z.number()
})
export type MemoryEvent = z.infer<typeof MemoryEvent>

export const MemoryEventQuery = z.object({
  profile: ProfileScope.default('all'),
  kinds: z.array(MemoryEventKind).optional(),
  provider: z.string().optional(),
  sessionId: z.string().optional(),
  refusalsOnly: z.boolean().default(false),
  beforeId: z.number().int().optional(),
  limit: z.number().int().min(1).max(1000).default(200)
})
export type MemoryEventQuery = z.input<typeof MemoryEventQuery>
export const MemoryEventPage = z.object({ items: z.array(MemoryEvent) })

export const MemoryTarget = z.enum(['memory', 'user'])
/**
 * How full a MEMORY.md / USER.md is, as the memory tool counts it against its limit (config.yaml's
 * `memory.memory_char_limit` / `user_char_limit`): `used` is the joined entries' size in code points, `percent` is
 * floored and capped at 100 (0 when the limit is 0 or less). `used` may pass `limit` in a file edited by hand.
 */
export const MemoryUsage = z.object({
  used: z.number().int().min(0),
  // not .int(): zod's int stops at 2^53, and a limit such as 1e30 in config.yaml is still one the tool uses
  limit: z.number(),
  percent: z.number().int().min(0).max(100)
})
export type MemoryUsage = z.infer<typeof MemoryUsage>
export const MemoryEntries = z.object({
  profile: ProfileName,
  target: MemoryTarget,
  entries: z.array(z.string()),
  usage: MemoryUsage,
  /** Set when the file cannot be changed without losing bytes (not UTF-8): the entries are shown read-only. */
  readOnly: z.string().optional(),
  /** The agent's memory writes staged for the user's approval (config.yaml's memory.write_approval); absent: none. */
  pending: z.number().int().min(0).optional()
})
export type MemoryEntries = z.infer<typeof MemoryEntries>
export const MemoryEntriesQuery = z.object({ profile: ProfileName, target: MemoryTarget.default('memory') })
/**
 * The entry's text as the caller was shown it: the edit is refused (conflict) when the entry at `index` no longer
 * reads so — another program (upstream's memory tool, an editor) moved or changed it since — instead of landing on
 * whichever entry stands there now.
 */
const EntryShown = z.string().max(1_000_000).optional()
export const MemoryEntryEdit = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('add'),
    profile: ProfileName,
    target: MemoryTarget,
    content: z.string().trim().min(1, 'entry text is required').max(20_000)
  }),
  z.object({
    op: z.literal('replace'),
    profile: ProfileName,
    target: MemoryTarget,
    index: z.number().int().min(0),
    expected: EntryShown,
    content: z.string().trim().min(1, 'entry text is required').max(20_000)
  }),
  z.object({
    op: z.literal('remove'),
    profile: ProfileName,
    target: MemoryTarget,
    index: z.number().int().min(0),
    expected: EntryShown
  })
])
export type MemoryEntryEdit = z.infer<typeof MemoryEntryEdit>

/**
 * A memory write the agent staged for the user's approval (config.yaml's memory.write_approval), read from
 * `pending/memory/<id>.json`. A record that cannot be applied (not JSON, no payload, an unknown action) carries only
 * its id and what is wrong with it: it can be rejected, never approved.
 */
const PendingOp = z.object({ action: z.string(), content: z.string().nullable(), oldText: z.string().nullable() })
export const PendingMemoryWrite = z.union([
  z.object({
    id: z.string(),
    target: MemoryTarget,
    action: z.enum(['add', 'replace', 'remove', 'batch']),
    /** The one-line account the staging program wrote. */
    summary: z.string(),
    /** `foreground` or `background_review` (upstream's self-improvement review). */
    origin: z.string(),
    /** ms since the epoch; null when the record has no time. */
    createdAt: z.number().nullable(),
    /** The session whose agent asked (Caduceus's records; upstream's do not say). */
    sessionId: z.string().nullable(),
    content: z.string().nullable().optional(),
    oldText: z.string().nullable().optional(),
    operations: z.array(PendingOp).optional()
  }),
  z.object({ id: z.string(), problem: z.string() })
])
export type PendingMemoryWrite = z.infer<typeof PendingMemoryWrite>
export const PendingMemoryDecision = z.object({
  profile: ProfileName,
  id: z.string().min(1).max(200),
  decision: z.enum(['approve', 'reject'])
})
/** `error`: the write was refused when applied (its record stays, as upstream keeps it). */
export const PendingMemoryResult = z.object({ id: z.string(), error: z.string().optional() })

export const ProviderHealth = z.object({
  profile: ProfileName,
  provider: z.string(),
  calls: z.number().int(),
  errors: z.number().int(),
  refusals: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  p95LatencyMs: z.number().nullable(),
  /**
   * Upstream #47021: the last recall a turn used (not the end-of-turn warm-up): when, the question, how long,
   * how much it returned, ok or failed with the reason (`detail`); the last sync_turn error.
   */
  lastPrefetch: z
    .object({
      at: z.number(),
      ok: z.boolean(),
      latencyMs: z.number().nullable(),
      size: z.number().int().nullable(),
      query: z.string().nullable().optional(),
      detail: z.string().nullable().optional()
    })
    .nullable()
    .optional(),
  /** Turns synced to the provider (sync_turn) and writes it took (built-in writes, mirrored writes). */
  syncs: z.number().int().optional(),
  syncFailures: z.number().int().optional(),
  writes: z.number().int().optional(),
  lastSyncError: z.object({ at: z.number(), summary: z.string() }).nullable().optional()
})
export type ProviderHealth = z.infer<typeof ProviderHealth>
export const MemoryHealth = z.object({ items: z.array(ProviderHealth) })
