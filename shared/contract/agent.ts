import { z } from 'zod'
import { ConfigProblem, Money, ProfileName, SessionId, Tokens } from './common'

/** Why a turn used the agent it did (gateway cache decision, hermes-spec §3.4). */
export const CacheDecision = z.enum(['reused', 'new', 'config_changed', 'external_write', 'session_changed'])
export type CacheDecision = z.infer<typeof CacheDecision>

export const ResumeInput = z.object({
  profile: ProfileName,
  sessionId: SessionId,
  text: z.string().trim().min(1, 'message text is required').max(200_000),
  /**
   * Sent while a turn runs in the session: the profile's busy input mode (upstream's `display.busy_input_mode`)
   * decides — stop that turn and run this next (`interrupt`, the default), run it once that turn ends (`queue`), or
   * add it to the running turn at its next step (`steer`). Without it a busy session refuses the message (conflict).
   */
  whileBusy: z.boolean().optional()
})
export type ResumeInput = z.infer<typeof ResumeInput>

/** Start a brand-new desk-chat session in a profile. */
export const StartInput = z.object({
  profile: ProfileName,
  text: z.string().trim().min(1, 'message text is required').max(200_000)
})
export type StartInput = z.infer<typeof StartInput>

export const TurnHandle = z.object({ turnId: z.string(), profile: ProfileName, sessionId: z.string() })
export type TurnHandle = z.infer<typeof TurnHandle>

export const BusyInputMode = z.enum(['interrupt', 'queue', 'steer'])
export type BusyInputMode = z.infer<typeof BusyInputMode>

/**
 * A message sent (`sessions.resume`). When it was sent while a turn ran, `busy` says what became of it: it stopped
 * that turn and runs as this turn (`interrupted`); it waits as this turn, which starts when the running one ends
 * (`queued`, announced by `turn.queued`); or it joined the running turn, which this handle names (`steered`).
 * `note` says why it was handled otherwise than the profile's mode asks (e.g. queued while subagents work).
 */
export const ResumeResult = TurnHandle.extend({
  busy: z.enum(['interrupted', 'queued', 'steered']).optional(),
  note: z.string().max(300).optional()
})
export type ResumeResult = z.infer<typeof ResumeResult>

/** A message waiting for the turn running in its session to end (busy input mode `queue`). */
export const TurnQueued = TurnHandle.extend({
  text: z.string(),
  /** 1 = runs next. */
  position: z.number().int().min(1),
  note: z.string().max(300).optional()
})
export type TurnQueued = z.infer<typeof TurnQueued>

export const TurnStarted = TurnHandle.extend({
  cache: CacheDecision,
  /** What changed, when the host can say (e.g. "memory provider identity changed (alice → bob)"); no secrets. */
  cacheReason: z.string().max(300).optional(),
  model: z.string().nullable(),
  demo: z.boolean(),
  /** Where the turn came from, as its session's source: `desktop` (this app's chat), `api_server`, `cron`, `cli`. */
  source: z.string().max(64).optional()
})
export type TurnStarted = z.infer<typeof TurnStarted>

/** What a streamed piece of a turn carries: the one list the agent, the gateway and the renderer share. */
export const TurnDeltaKind = z.enum(['text', 'reasoning', 'tool_call', 'tool_result', 'message_saved', 'notice'])
export type TurnDeltaKind = z.infer<typeof TurnDeltaKind>

/** One streamed piece of a running turn. */
export const TurnDelta = TurnHandle.extend({
  kind: TurnDeltaKind,
  text: z.string().optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
  /** Persisted message id when kind = message_saved. */
  messageId: z.number().int().optional(),
  /** The session the message was saved to (differs after compression rotation). */
  savedSessionId: z.string().optional()
})
export type TurnDelta = z.infer<typeof TurnDelta>
/** A streamed piece as the agent emits it: the gateway adds the turn handle. The one declaration of its fields. */
export type TurnDeltaBody = Omit<TurnDelta, keyof TurnHandle>

export const TurnFinished = TurnHandle.extend({
  status: z.enum(['completed', 'interrupted', 'error']),
  error: z.string().optional(),
  /** With status `error`: the reply stayed cut off, but its text was kept and is the turn's answer. */
  partial: z.boolean().optional(),
  tokens: Tokens,
  cost: Money,
  apiCalls: z.number().int()
})
export type TurnFinished = z.infer<typeof TurnFinished>

export const StopInput = z.object({ turnId: z.string().min(1) })

/** A turn running or waiting now (`turns.active`): what a window that just opened (or reconnected) shows. */
export const ActiveTurn = TurnHandle.extend({
  status: z.enum(['queued', 'running']),
  /** The turn's channel as a session source (`desktop`, `api_server`, `cron`, `cli`). */
  source: z.string().max(64),
  /** A queued message's text, and why it was queued when that was not the profile's mode. */
  text: z.string().optional(),
  note: z.string().max(300).optional()
})
export type ActiveTurn = z.infer<typeof ActiveTurn>
/** `known`: turns this window saw running or queued; those that ended meanwhile come back as `finished`. */
export const ActiveTurnsInput = z.object({ known: z.array(z.string().min(1).max(64)).max(500).default([]) })
export const ActiveTurns = z.object({ turns: z.array(ActiveTurn), finished: z.array(TurnFinished) })
export type ActiveTurns = z.infer<typeof ActiveTurns>

export const CachedAgentInfo = z.object({
  key: z.string(),
  profile: ProfileName,
  sessionId: z.string().nullable(),
  model: z.string().nullable(),
  signature: z.string(),
  running: z.boolean(),
  idleSeconds: z.number(),
  turns: z.number().int(),
  messageCountSnapshot: z.number().int().nullable()
})
export type CachedAgentInfo = z.infer<typeof CachedAgentInfo>
export const GatewayState = z.object({
  agents: z.array(CachedAgentInfo),
  cap: z.number().int(),
  idleTtlSeconds: z.number()
})
export type GatewayState = z.infer<typeof GatewayState>
export const EvictInput = z.object({ key: z.string().min(1) })

/**
 * What moved the compression trigger away from config.yaml's `compression.threshold` × the window, as upstream's agent
 * applies it: `small_window` the share raised to 0.75 under a 512K window, `max_tokens_reserved` model.max_tokens
 * taken out of the window for the reply, `min_tokens` raised to the 64K-token minimum, `full_window` 85% of the input
 * budget because that minimum would fill it.
 */
export const CompressionAdjustment = z.enum(['small_window', 'max_tokens_reserved', 'min_tokens', 'full_window'])
export type CompressionAdjustment = z.infer<typeof CompressionAdjustment>
/** Where a session of the profile really compresses (the agent's own rule, not the configured share alone). */
export const CompressionTrigger = z.object({
  enabled: z.boolean(),
  /** `compression.threshold` as written (0.5 when unset), a share of the window. */
  configuredThreshold: z.number(),
  /** The prompt size, in tokens, at which a turn compresses. */
  triggerTokens: z.number().int().nonnegative(),
  /** The model's context window in tokens (model.context_length, else upstream's fallback). */
  contextWindow: z.number().int().positive(),
  /** model.max_tokens, reserved out of the window for the reply; null when unset. */
  maxTokens: z.number().int().positive().nullable(),
  adjustments: z.array(CompressionAdjustment)
})
export type CompressionTrigger = z.infer<typeof CompressionTrigger>

/** Settings as the renderer sees them: the API key itself never leaves the main process. */
export const ProfileSettings = z.object({
  profile: ProfileName,
  provider: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  apiMode: z.enum(['chat_completions', 'anthropic_messages']),
  apiKeySet: z.boolean(),
  /** Where the key is kept: OS keychain (safeStorage) or the profile `.env` (0600). */
  apiKeyStorage: z.enum(['safe_storage', 'env_file', 'config', 'none']),
  /** Model calls a Session page turn may make (upstream's chat reads `agent.max_turns` as it is); null: no limit. */
  maxIterations: z.number().positive().nullable(),
  compression: CompressionTrigger,
  /** `display.busy_input_mode` as upstream's gateway reads it: what a message sent mid-turn does. */
  busyInputMode: BusyInputMode,
  demo: z.boolean(),
  /**
   * Set when config.yaml cannot be read: provider, base URL and model are then empty (nothing is known of them)
   * and the other values are not the profile's; Save and Send refuse until the file is fixed.
   */
  configError: ConfigProblem.optional()
})
export type ProfileSettings = z.infer<typeof ProfileSettings>
export const SettingsUpdate = z.object({
  profile: ProfileName,
  provider: z.string().trim().min(1).max(64).optional(),
  baseUrl: z.string().trim().url('base URL must be a URL').max(2048).optional(),
  model: z.string().trim().min(1).max(256).optional(),
  apiMode: z.enum(['chat_completions', 'anthropic_messages']).optional(),
  /** Write-only. Empty string clears the key. */
  apiKey: z.string().max(4096).optional(),
  busyInputMode: BusyInputMode.optional()
})
export type SettingsUpdate = z.infer<typeof SettingsUpdate>
export const ProfileOnly = z.object({ profile: ProfileName })
export const SessionIdOnly = z.object({ sessionId: SessionId })
