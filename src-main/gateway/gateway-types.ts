/**
 * The Gateway's dependencies, as small structural interfaces: the host passes the real store registry,
 * the real Agent factory and its event bus; tests pass small real stand-ins.
 */
import type { EventName, EventPayload, Tokens, TurnDeltaBody } from '@shared/contract'
import type { RawConfig, ResolvedRuntime } from '../config'
import type { SecretVault } from '../secrets'
import type { CacheableAgent } from './cacheable'
import type { MemoryIdentitySource } from './cache-busting'
import type { Logger } from '@shared/contract/log'
import type { TurnCostStatus } from '@shared/contract/money'
import type { TurnChannel } from './channels'

/** The slice of a profile's SessionStore the gateway uses (reads synchronous, writes Promise-returning). */
export interface GatewayStore {
  getSession(id: string): { messageCount?: unknown; endedAt?: unknown } | null | undefined
  /** Just the guard's columns (cheaper than `getSession`); used instead of it when present. */
  sessionCounters?(id: string): { messageCount?: unknown; endedAt?: unknown; rewindCount?: unknown } | null | undefined
  createSession?(
    id: string,
    source: string,
    opts?: {
      model?: string | null
      modelConfig?: Record<string, unknown> | null
      profileName?: string | null
      sessionKey?: string | null
    }
  ): unknown
  /**
   * Saves the user's message before `sessions.resume` / `sessions.start` answer (durable first; the store
   * retries a foreign lock off the event loop). Without it the agent saves the message itself.
   */
  appendMessage?(
    sessionId: string,
    msg: { role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> }
  ): unknown
  /** An automatic title ('derived': it lands only on an untitled session); throws when another session holds it. */
  setTitle?(id: string, title: string, source: 'derived'): unknown
  /** Ends the session with `reason` (a session already ended keeps its first reason). */
  endSession?(id: string, reason: string): unknown
  /** Tip of a compression chain, so resuming the root continues where the conversation is now. */
  resolveResumeSessionId?(id: string): string
}

/** Structurally the store's StoreRegistry: pass it straight in. */
export interface GatewayStores<S extends GatewayStore = GatewayStore> {
  /** The profile's store; throws (CaduceusError not_found) for an unknown profile. */
  get(profile: string): S
}

/** One streamed piece of a turn (the Agent's AgentDelta). */
export type TurnDeltaLike = TurnDeltaBody

export interface TurnResultLike {
  /** The assistant's final reply text (what a stateless channel hands back). */
  finalText?: string
  status: 'completed' | 'interrupted' | 'error'
  error?: string
  /** With status `error`: the reply stayed cut off, but `finalText` is kept as the answer. */
  partial?: boolean
  tokens: Tokens
  costUsd: number | null
  costStatus: TurnCostStatus
  apiCalls: number
  /** The session the turn ended in (differs after compression rotation). */
  sessionId?: string
}

/** The Agent's per-turn reasoning setting (mutable in place; excluded from the signature). */
export interface ReasoningSetting {
  enabled?: boolean
  effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'
}

/** A user message with images: OpenAI chat content parts (`text` / `image_url`). */
export type ContentParts = Array<
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } }
>

export interface TurnAgent extends CacheableAgent {
  sessionId?: string
  reasoningConfig?: ReasoningSetting | null
  runTurn(
    text: string,
    opts: {
      onDelta?: (d: TurnDeltaLike) => void
      signal?: AbortSignal
      turnId?: string
      savedUserMessageId?: number
      parts?: ContentParts
      /** What the model reads before the message instead of the stored transcript (ChannelTurnInput.callerHistory). */
      history?: Array<{ role: string; content: unknown }>
      /** Messages stored just before the user message (ChannelTurnInput.prelude), for a transcript held in memory. */
      prelude?: Array<{ role: 'user' | 'assistant'; content: string }>
    }
  ): Promise<TurnResultLike>
  interrupt?(reason?: string): void
  steer?(text: string): boolean
  /** Context compression is running in the current turn. */
  compressing?: boolean
  /** Start-up warnings not yet shown to the user; the gateway emits them as notices and empties the list. */
  startupNotices?: string[]
}

export interface BuildAgentInput<S extends GatewayStore = GatewayStore> {
  profile: string
  home: string
  sessionId: string
  sessionKey: string
  runtime: ResolvedRuntime
  config: RawConfig
  maxIterations: number
  reasoningConfig: ReasoningSetting | null
  /** The profile's store, as the registry returned it (the real SessionStore in the host). */
  store: S
  /** The channel the turn arrived on (source + memory platform); desk chat when absent. */
  channel?: TurnChannel
  /** A stateless caller's own history (OpenAI `messages` before the last user turn). */
  history?: Array<{ role: string; content: unknown }>
  /** A stateless caller's own system text for this agent (part of the cache signature, never stored). */
  ephemeralPrompt?: string
  /** Only these of the profile's toolsets (a cron job's enabled_toolsets). */
  toolsets?: string[]
  /** Working directory for the agent's tools (a cron job's workdir). */
  cwd?: string
  /** A caller's long-term memory scope (ChannelTurnInput.memoryKey), for the memory providers' initialize. */
  memoryKey?: string
}

/** A notice saved into a conversation's live tip (`tip`): the message it appended, null when there was none. */
export type SaveNotice = (tip: string) => Promise<{ messageId: number; text: string } | null>

/** A queue of saved notices the gateway runs: `runWith` is called once, by the gateway's constructor. */
export interface FollowUpRunner {
  runWith(deliverSaved: (input: { profile: string; sessionId: string; save: SaveNotice }) => Promise<unknown>): void
}

export interface GatewayOptions<A extends TurnAgent = TurnAgent, S extends GatewayStore = GatewayStore> {
  /** The Hermes root: `default` lives here, named profiles under `profiles/<name>`. */
  root: string
  stores: GatewayStores<S>
  buildAgent(input: BuildAgentInput<S>): A | Promise<A>
  emit<K extends EventName>(event: K, payload: EventPayload<K>): void
  log?: Logger
  cap?: number
  idleTtlSeconds?: number
  /** Override where a profile lives (default: profileHome(root, profile)). */
  homeFor?(profile: string): string
  /** Live tool-registry generation for the profile (cache-busting). */
  registryGeneration?(profile: string): number | null
  memoryIdentity?: MemoryIdentitySource
  /** Toolsets enabled for the profile's agents (part of the signature). */
  enabledToolsets?(profile: string, config: RawConfig): string[]
  /** The host's vault: every turn's secrets come from it. */
  vault: SecretVault
  /** Subagents of a session now running (a message sent mid-turn then queues rather than interrupting). */
  activeSubagents?(profile: string, sessionId: string): number
  /**
   * Where the host's other parts queue saved notices to run as follow-up turns (a finished background delegation, a
   * finished terminal process). Made before the gateway and before what queues into it, and handed to each, so the
   * graph is built in one pass: the gateway takes the queue's deliveries as it is constructed, through deliverSaved.
   */
  followUps?: FollowUpRunner
  /** Epoch ms (tests). */
  clock?: () => number
}
