import { z } from 'zod'
import { pricesRequests } from './prices'
import { ProfileName, ProfileScope } from './common'
import {
  MessagePage,
  MessageText,
  MessageTextQuery,
  MessageQuery,
  ProfileInfo,
  SearchQuery,
  SearchResult,
  SessionDetail,
  SessionKey,
  SessionPage,
  SessionQuery,
  SessionSourcesQuery,
  SessionSources,
  SessionSummary,
  SessionUpdate
} from './sessions'
import {
  EvictInput,
  GatewayState,
  ProfileOnly,
  ProfileSettings,
  ActiveTurns,
  ActiveTurnsInput,
  ResumeInput,
  ResumeResult,
  SettingsUpdate,
  StartInput,
  StopInput,
  TurnHandle
} from './agent'
import {
  ChildRef,
  CostQuery,
  CostSummary,
  FollowUpEstimate,
  FollowUpInput,
  FollowUpResult,
  SessionCost,
  SubagentList,
  SubagentQuery,
  TombstoneResult,
  SpawnPause
} from './delegation'
import { sessionsAdminRequests } from './sessions-admin'
import { sessionsBulkRequests } from './sessions-bulk'
import { channelRequests } from './channels'
import {
  MemoryEntries,
  MemoryEntriesQuery,
  MemoryEntryEdit,
  MemoryEventPage,
  MemoryEventQuery,
  MemoryHealth,
  PendingMemoryDecision,
  PendingMemoryResult,
  PendingMemoryWrite
} from './memory'
import { memoryProviderRequests } from './memory-providers'

const Empty = z.object({}).strict().default({})
const Ok = z.object({ ok: z.literal(true) })

export const AppInfo = z.object({
  version: z.string(),
  root: z.string(),
  headless: z.boolean(),
  demo: z.boolean(),
  profiles: z.array(ProfileInfo),
  logCommand: z.string()
})
export type AppInfo = z.infer<typeof AppInfo>

/**
 * Every request the renderer may make. Schemas are the source of truth: the host parses `input` with them
 * at the boundary, the client's types are inferred from them. Names are `domain.verb`.
 */
export const requests = {
  ...pricesRequests,
  /** Host facts: Hermes root, profiles, headless or Electron. */
  'app.info': { input: Empty, output: AppInfo },
  /** Profiles under the Hermes root with their session counts. */
  'profiles.list': { input: Empty, output: z.array(ProfileInfo) },
  /** Keyset-paginated session list (roots; compression chains projected to their tip). */
  'sessions.list': { input: SessionQuery, output: SessionPage },
  /** The sources a Sessions filter can offer. */
  'sessions.sources': { input: SessionSourcesQuery, output: SessionSources },
  /** One session with lineage, usage by model and metadata. */
  'sessions.get': { input: SessionKey, output: SessionDetail },
  /** A page of a session's transcript. */
  'sessions.messages': { input: MessageQuery, output: MessagePage },
  /** The rest of a field a page cut (content, reasoning, a call's arguments), one chunk at a time. */
  'sessions.messageText': { input: MessageTextQuery, output: MessageText },
  /** Full-text search over messages with highlighted snippets. */
  'sessions.search': { input: SearchQuery, output: SearchResult },
  /** Title / archive / pin. */
  'sessions.update': { input: SessionUpdate, output: SessionSummary },
  /** Continue a session with a user message; the reply streams as turn.* events. */
  'sessions.resume': { input: ResumeInput, output: ResumeResult },
  /** Start a new desk-chat session with a first message. */
  'sessions.start': { input: StartInput, output: TurnHandle },
  /** Interrupt a running turn. */
  'turns.stop': { input: StopInput, output: Ok },
  /** Turns running or queued now (and which of `known` ended meanwhile): a window's state after opening or reconnecting. */
  'turns.active': { input: ActiveTurnsInput, output: ActiveTurns },
  /** Cached agents across profiles. */
  'gateway.state': { input: Empty, output: GatewayState },
  /** Evict one cached agent (soft release; refused while it runs). */
  'gateway.evict': { input: EvictInput, output: z.object({ evicted: z.boolean() }) },
  /** Provider settings of a profile, without the key. */
  'settings.get': { input: ProfileOnly, output: ProfileSettings },
  /** Update provider settings; the key is write-only. */
  'settings.update': { input: SettingsUpdate, output: ProfileSettings },
  /** Running, retained and (optionally) tombstoned subagents. */
  'subagents.list': { input: SubagentQuery, output: SubagentList },
  /** Size and estimated cost of resuming a retained child. */
  'subagents.estimate': { input: ChildRef, output: FollowUpEstimate },
  /** Message a running (steer) or retained (resume on its own session) child. */
  'subagents.followUp': { input: FollowUpInput, output: FollowUpResult },
  /** Retire a retained child: no longer addressable, transcript kept. */
  'subagents.tombstone': { input: ChildRef, output: TombstoneResult },
  /** Pause (or resume) spawning new subagents, host-wide; follow-ups to existing children are never paused. */
  'subagents.setSpawnPaused': { input: SpawnPause, output: SpawnPause },
  /** Cost of one session: own vs inclusive of delegated children. */
  'costs.session': { input: SessionKey, output: SessionCost },
  /** Cost overview across profiles, models and days. */
  'costs.summary': { input: CostQuery, output: CostSummary },
  /** Memory activity feed. */
  'memory.events': { input: MemoryEventQuery, output: MemoryEventPage },
  /** Entries of the built-in memory store of one profile. */
  'memory.entries': { input: MemoryEntriesQuery, output: MemoryEntries },
  /** Add / replace / remove a built-in memory entry, scoped to that profile only. */
  'memory.edit': { input: MemoryEntryEdit, output: MemoryEntries },
  /** The agent's memory writes staged for approval (memory.write_approval) in one profile, oldest first. */
  'memory.pending': {
    input: z.object({ profile: ProfileName }),
    output: z.object({ items: z.array(PendingMemoryWrite) })
  },
  /** Approve (apply to MEMORY.md / USER.md) or reject one staged memory write of one profile. */
  'memory.decidePending': { input: PendingMemoryDecision, output: PendingMemoryResult },
  /** Per-provider health. */
  'memory.health': { input: z.object({ profile: ProfileScope.default('all') }), output: MemoryHealth },
  ...sessionsAdminRequests,
  ...sessionsBulkRequests,
  ...channelRequests,
  ...memoryProviderRequests
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>

export type Requests = typeof requests
export type RequestName = keyof Requests
export type RequestInput<K extends RequestName> = z.input<Requests[K]['input']>
export type RequestOutput<K extends RequestName> = z.output<Requests[K]['output']>
export const requestNames = Object.keys(requests) as RequestName[]
