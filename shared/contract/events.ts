import { z } from 'zod'
import { ProfileName, ProfileScope } from './common'
import { TurnDelta, TurnFinished, TurnQueued, TurnStarted } from './agent'
import { MemoryEvent } from './memory'

/** How many of a `sessions.changed` burst's ids the host looks up parents for (a bulk delete names thousands). */
export const PARENT_LOOKUP_MAX = 500

/** Events pushed from the host, named as facts in the past tense. */
export const events = {
  /** Sessions of a profile changed (this or another process committed). Coalesced. */
  'sessions.changed': z.object({
    profile: ProfileName,
    sessionIds: z.array(z.string()),
    /**
     * The parents of the changed sessions that have one (absent when none does): a view of a parent session
     * learns of a child it has not listed yet (a delegate another process started). Looked up for a burst's first
     * PARENT_LOOKUP_MAX ids only.
     */
    parentIds: z.array(z.string()).optional()
  }),
  /** A message sent mid-turn waits for the running turn to end; its turn.started (same id) follows, or turn.finished. */
  'turn.queued': TurnQueued,
  'turn.started': TurnStarted,
  'turn.delta': TurnDelta,
  'turn.finished': TurnFinished,
  /** A delegation or retained child changed state. */
  'delegation.updated': z.object({
    profile: ProfileName,
    delegationId: z.string(),
    parentSessionId: z.string().nullable()
  }),
  /** One memory event was recorded. */
  'memory.activity': MemoryEvent,
  /**
   * A profile's built-in memory files (MEMORY.md, USER.md) changed on disk: this or another process wrote them; or its
   * config.yaml did, which holds their char limits (how full the Memory page says they are).
   */
  'memory.changed': z.object({ profile: ProfileName }),
  /** A profile's cron/jobs.json changed on disk: this or another process (upstream's cron CLI or scheduler) wrote it. */
  'cron.changed': z.object({ profile: ProfileName }),
  /** The agent cache changed (insert, evict, run state). */
  'gateway.changed': z.object({ reason: z.string() }),
  /** Text a retained child is producing for a follow-up sent from the UI (streams into the dialog). */
  'subagents.followUpDelta': z.object({ profile: ProfileName, childId: z.string(), text: z.string() }),
  /**
   * The user's prices (Settings → Prices) were replaced: every amount priced at read time — session rows, a
   * session's usage and cost split, subagents, the Costs page — may read differently now.
   */
  'prices.changed': z.object({}),
  /**
   * A read of a profile's state.db met another program's lock (a rollback-journal home during its commit, VACUUM or
   * `BEGIN EXCLUSIVE`): `waiting` at the first refusal (the host retries it on timers), then `cleared` when it was
   * read after all, or `gave_up` when the lock outlasted the retry (the request failed as locked). `profile` is the
   * one the request named, 'all' for a request over every profile. A view of every profile served without a locked
   * one (named in its `unavailable`) waits for nothing: `cleared` alone (request `lockedOut`) says its lock is gone.
   * `cause` is what the read waited for: `locked` (another program's lock), or `replaced` (state.db was replaced under
   * the host, a backup restored over it, and the store waits a moment for its old -wal/-shm before opening the new file).
   */
  'store.lockChanged': z.object({
    profile: ProfileScope,
    request: z.string(),
    state: z.enum(['waiting', 'cleared', 'gave_up']),
    cause: z.enum(['locked', 'replaced'])
  }),
  /** Profiles appeared or disappeared. */
  'profiles.changed': z.object({ profiles: z.array(ProfileName) })
} as const satisfies Record<string, z.ZodType>

export type Events = typeof events
export type EventName = keyof Events
export type EventPayload<K extends EventName> = z.output<Events[K]>
export const eventNames = Object.keys(events) as EventName[]
