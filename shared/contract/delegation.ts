import { z } from 'zod'
import { Money, ProfileName, ProfileProblem, ProfileScope, Tokens } from './common'

/** `completed`: finished and never retained (a delegation upstream dispatched: its table keeps no retained children). */
export const SubagentState = z.enum(['running', 'retained', 'completed', 'tombstoned', 'expired', 'failed', 'unknown'])
export type SubagentState = z.infer<typeof SubagentState>

export const Subagent = z.object({
  profile: ProfileName,
  delegationId: z.string(),
  /** Subagent id (sa-…) or, failing that, the child session id. */
  childId: z.string(),
  childSessionId: z.string(),
  parentSessionId: z.string().nullable(),
  state: SubagentState,
  /** Raw durable state (`running`, `completed`, `error`, `unknown`, …). */
  rawState: z.string(),
  goal: z.string(),
  model: z.string().nullable(),
  dispatchedAt: z.number().nullable(),
  completedAt: z.number().nullable(),
  retainedAt: z.number().nullable(),
  /** When TTL pruning will tombstone it (retained only). */
  expiresAt: z.number().nullable(),
  tombstonedAt: z.number().nullable(),
  transcriptMessages: z.number().int(),
  transcriptChars: z.number().int(),
  cost: Money,
  tokens: Tokens,
  /** Priced by the user's override (Settings → Prices), not upstream. */
  customPrice: z.boolean().optional(),
  /** The child's final summary and error, from the durable completion. */
  summary: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  /**
   * Dispatched by another agent host (upstream Hermes): its row has no child manifest and Caduceus holds no agent
   * for it, so it cannot be followed up or tombstoned from here; `childSessionId` is '' unless one delegate child
   * session matched it unambiguously.
   */
  foreign: z.boolean().optional()
})
export type Subagent = z.infer<typeof Subagent>

export const SubagentQuery = z.object({
  profile: ProfileScope.default('all'),
  includeTombstoned: z.boolean().default(false),
  parentSessionId: z.string().optional()
})
export type SubagentQuery = z.input<typeof SubagentQuery>
export const SubagentList = z.object({
  items: z.array(Subagent),
  maxRetained: z.number().int(),
  ttlHours: z.number(),
  /** New subagents are refused host-wide (follow-ups to existing ones still run). */
  spawnPaused: z.boolean().optional(),
  unavailable: z.array(ProfileProblem).optional()
})
export type SubagentList = z.infer<typeof SubagentList>
export const SpawnPause = z.object({ paused: z.boolean() })

export const FollowUpInput = z.object({
  profile: ProfileName,
  childId: z.string().trim().min(1, 'child id is required'),
  text: z.string().trim().min(1, "follow_up requires 'goal' (the message to deliver to the child).").max(200_000),
  /** The session asking; defaults to the child's recorded parent (the UI acts for the spawning lineage). */
  requesterSessionId: z.string().optional()
})
export type FollowUpInput = z.infer<typeof FollowUpInput>
export const FollowUpResult = z.object({
  mode: z.enum(['follow_up', 'queued']),
  childId: z.string(),
  childSessionId: z.string(),
  summary: z.string().nullable(),
  receipt: z.string().optional()
})
export type FollowUpResult = z.infer<typeof FollowUpResult>

/** Size and estimated cost of resuming a child, shown before a large follow-up. */
export const FollowUpEstimate = z.object({
  messages: z.number().int(),
  chars: z.number().int(),
  estTokens: z.number().int(),
  estCost: Money
})
export type FollowUpEstimate = z.infer<typeof FollowUpEstimate>
export const ChildRef = z.object({ profile: ProfileName, childId: z.string().trim().min(1, 'child id is required') })
export const TombstoneResult = z.object({ tombstoned: z.boolean() })

export const ChildCost = z.object({
  childSessionId: z.string(),
  parentTurnId: z.string(),
  status: z.string().nullable(),
  apiCalls: z.number().int(),
  cost: Money,
  tokens: Tokens,
  createdAt: z.number(),
  customPrice: z.boolean().optional()
})
export type ChildCost = z.infer<typeof ChildCost>

export const SessionCost = z.object({
  profile: ProfileName,
  sessionId: z.string(),
  own: Money,
  children: z.array(ChildCost),
  childrenTotal: Money,
  inclusive: Money,
  perModel: z.array(z.object({ model: z.string(), cost: Money, tokens: Tokens, customPrice: z.boolean().optional() })),
  perTurn: z.array(z.object({ turnId: z.string(), childrenCost: Money })),
  /** Some of it is priced by the user's override (Settings → Prices), not upstream. */
  customPrice: z.boolean().optional()
})
export type SessionCost = z.infer<typeof SessionCost>

export const CostQuery = z.object({
  profile: ProfileScope.default('all'),
  days: z.number().int().min(1).max(3650).default(30),
  /** All of the history, however old (`days`, `from` and `to` are then not read). */
  all: z.boolean().optional(),
  /** A period of local days, both ends included (in place of `days`; either end may be left open). */
  from: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'from must be YYYY-MM-DD')
    .optional(),
  to: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'to must be YYYY-MM-DD')
    .optional(),
  /** Only spend on this local day (YYYY-MM-DD), e.g. after a click on a chart bar. */
  day: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'day must be YYYY-MM-DD')
    .optional(),
  /** Every session with spend in the period in `topSessions` (the CSV report), not only the top 10. */
  allSessions: z.boolean().optional()
})
export type CostQuery = z.input<typeof CostQuery>
export const CostSummary = z.object({
  profiles: z.array(
    z.object({ profile: ProfileName, own: Money, children: Money, inclusive: Money, sessions: z.number().int() })
  ),
  total: Money,
  byModel: z.array(
    z.object({
      model: z.string(),
      cost: Money,
      tokens: Tokens,
      /** Priced by the user's override, not upstream. */ customPrice: z.boolean().optional()
    })
  ),
  byDay: z.array(z.object({ day: z.string(), profile: ProfileName, usd: z.number(), unpriced: z.boolean() })),
  /** Tokens used per local day and profile (children's sessions included), for the whole period. */
  tokensByDay: z.array(z.object({ day: z.string(), profile: ProfileName, tokens: Tokens })),
  topSessions: z.array(
    z.object({
      profile: ProfileName,
      sessionId: z.string(),
      title: z.string().nullable(),
      own: Money,
      inclusive: Money,
      customPrice: z.boolean().optional()
    })
  ),
  unavailable: z.array(ProfileProblem).optional(),
  /** How much of the totals comes from the user's price overrides ("custom price"), and for which models. */
  customPriced: z.object({ usd: z.number(), models: z.array(z.string()) }).optional()
})
export type CostSummary = z.infer<typeof CostSummary>
