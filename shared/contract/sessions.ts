import { z } from 'zod'
import { Money, ProfileName, ProfileProblem, ProfileScope, SessionId, Tokens } from './common'

/** How a session relates to its parent (hermes-spec §1.7). */
export const SessionKind = z.enum(['root', 'continuation', 'branch', 'delegate', 'reset', 'child'])
export type SessionKind = z.infer<typeof SessionKind>

export const SessionSummary = z.object({
  profile: ProfileName,
  id: z.string(),
  /** Id of the compression-chain root this row is the tip of (equals id when not a chain). */
  rootId: z.string(),
  chainLength: z.number().int(),
  kind: SessionKind,
  parentSessionId: z.string().nullable(),
  source: z.string(),
  title: z.string().nullable(),
  /** First user message, trimmed, for untitled sessions. */
  preview: z.string().nullable(),
  model: z.string().nullable(),
  messageCount: z.number().int(),
  toolCallCount: z.number().int(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  endReason: z.string().nullable(),
  lastActiveAt: z.number(),
  tokens: Tokens,
  cost: Money,
  /** The cost includes the user's price for usage upstream left unpriced (Settings → Prices). */
  customPrice: z.boolean().optional(),
  archived: z.boolean(),
  pinned: z.boolean(),
  childCount: z.number().int()
})
export type SessionSummary = z.infer<typeof SessionSummary>

/** Rows the Sessions page reads for its first page, and from the top again when another program changed a session. */
export const SESSION_PAGE_ROWS = 100
export const SESSION_HEAD_ROWS = 50

export const SessionSort = z.enum(['active', 'started', 'messages', 'tokens', 'cost', 'title'])
export type SessionSort = z.infer<typeof SessionSort>

export const SessionQuery = z.object({
  profile: ProfileScope.default('all'),
  sources: z.array(z.string().min(1)).max(32).optional(),
  /**
   * Sources left out (upstream's `exclude_sources`). Absent: the list leaves out kanban, tool and oneshot sessions,
   * as upstream's human session lists do, unless `sources`, `idPrefix` or `includeChildren` is given.
   */
  excludeSources: z.array(z.string().min(1)).max(32).optional(),
  archived: z.enum(['exclude', 'include', 'only']).default('exclude'),
  /** Epoch seconds, inclusive bounds on last activity. */
  from: z.number().optional(),
  to: z.number().optional(),
  idPrefix: z.string().max(128).optional(),
  /**
   * Show delegate children (subagent runs) as their own rows. A /branch is always listed, as upstream lists it;
   * other children upstream's list leaves out (a reset's, a tool's, unmarked ones) are listed too.
   */
  includeChildren: z.boolean().default(false),
  /**
   * Order of the list: last activity (the default), start, message count, tokens (all five counts), cost (priced
   * usage; unpriced counts as 0) or title (the session's own, else its first user message, case-folded). The host
   * sorts, so every page continues the same order.
   */
  sort: SessionSort.optional(),
  /** Default: newest / largest first; `title` A → Z. */
  dir: z.enum(['asc', 'desc']).optional(),
  limit: z.number().int().min(1).max(500).default(100),
  /** Opaque keyset cursor from the previous page (of the same order). */
  cursor: z.string().max(1024).nullable().optional()
})
export type SessionQuery = z.input<typeof SessionQuery>

/**
 * Every source the scope's sessions have (upstream's hidden internal sessions aside), those the list leaves out unless
 * named (kanban, oneshot, …) included, so a source filter can offer them all. Its own request: the filter needs it
 * once, the list's first page (the hot path) never.
 */
export const SessionSourcesQuery = z.object({ profile: ProfileScope.default('all') })
export const SessionSources = z.object({ sources: z.array(z.string()) })

export const SessionPage = z.object({
  items: z.array(SessionSummary),
  nextCursor: z.string().nullable(),
  /** Cross-profile views: profiles that could not be read (served without them) and notices to show. */
  unavailable: z.array(ProfileProblem).optional(),
  notices: z.array(ProfileProblem).optional()
})
export type SessionPage = z.infer<typeof SessionPage>

/**
 * The browser never gets a session whole (issue 24): a page holds at most MESSAGE_PAGE_CHARS characters of text,
 * and each long field (content, reasoning, a call's arguments) only its first MESSAGE_PREVIEW_CHARS characters, with
 * the full field's UTF-8 size beside it (`contentBytes`, `reasoningBytes`, `argumentsBytes`: present only when cut).
 * A field over MESSAGE_FIELD_MAX_BYTES is not read for a page at all (SQLite would pass over all of it): its
 * preview is '' (tool calls: `toolCalls` null, `toolCallsBytes` set); what such a user or assistant row holds is
 * said from what the page knows without its text (notice-rows.ts unreadText: a merged summary by its `summaryMerged`
 * marker). "Show all" reads a field with `sessions.messageText`, up to MESSAGE_TEXT_CHUNK characters (code points) a
 * call, from `offset` until `offset + text` reaches `total`; the chunks join into the stored text exactly.
 */
export const MESSAGE_PREVIEW_CHARS = 32_768
export const MESSAGE_FIELD_MAX_BYTES = 4 * 1024 * 1024
export const MESSAGE_PAGE_CHARS = 1_000_000
export const MESSAGE_TEXT_CHUNK = 524_288
const Cut = z.number().int().nonnegative().optional()

export const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string(), argumentsBytes: Cut })
export type ToolCall = z.infer<typeof ToolCall>

/**
 * One model call's usage, as the agent that made it saved it with the assistant message it produced (the
 * message's `display_metadata.usage`); upstream's own rows carry none (their per-message `token_count` at most).
 */
export const CallUsage = z.object({ tokens: Tokens, cost: Money, model: z.string().nullable() })
export type CallUsage = z.infer<typeof CallUsage>

export const Message = z.object({
  id: z.number().int(),
  sessionId: z.string(),
  role: z.string(),
  content: z.string().nullable(),
  toolCalls: z.array(ToolCall).nullable(),
  toolCallId: z.string().nullable(),
  toolName: z.string().nullable(),
  reasoning: z.string().nullable(),
  timestamp: z.number(),
  tokenCount: z.number().nullable(),
  finishReason: z.string().nullable(),
  displayKind: z.string().nullable(),
  contentBytes: Cut,
  reasoningBytes: Cut,
  toolCallsBytes: Cut,
  usage: CallUsage.optional(),
  /**
   * The row's `tool_calls` column holds something that is not a list of calls once decoded (a lone call object, a
   * JSON string wrapping a list, text that is not JSON). Upstream's reader decodes the column once and its consumers
   * only act on a list, so no call is shown or sent again; the transcript says such a record was there.
   */
  toolCallsMalformed: z.literal(true).optional(),
  /**
   * Compacted away: still shown (upstream's display keeps `active = 0, compacted = 1` rows), but no longer in what
   * the model is sent. Rewound rows (inactive, not compacted) are not shown at all.
   */
  compacted: z.literal(true).optional(),
  /**
   * A compression summary was merged into this kept message (`display_metadata.summaryMerged`, merged-summary.ts):
   * the content holds the message's own text and the summary, which the transcript shows apart (folded).
   */
  summaryMerged: z.literal(true).optional(),
  /**
   * The row's `_compressed_summary` column is set (a v31 home; merged-summary.ts rowSummary): a compression summary
   * whatever its text opens with.
   */
  compressedSummary: z.literal(true).optional()
})
export type Message = z.infer<typeof Message>

/** One chunk of a cut field ("show all"): `callIndex` picks the tool call for `arguments`. */
export const MessageTextQuery = z.object({
  profile: ProfileName,
  sessionId: SessionId,
  messageId: z.number().int(),
  field: z.enum(['content', 'reasoning', 'arguments']),
  callIndex: z.number().int().min(0).default(0),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MESSAGE_TEXT_CHUNK).default(MESSAGE_TEXT_CHUNK)
})
export type MessageTextQuery = z.input<typeof MessageTextQuery>
export const MessageText = z.object({ text: z.string(), offset: z.number().int(), total: z.number().int() })
export type MessageText = z.infer<typeof MessageText>

export const MessageQuery = z.object({
  profile: ProfileName,
  sessionId: SessionId,
  /** Page forward from (exclusive) this message id; `0` is the from-start cursor: the first page (Home). */
  afterId: z.number().int().optional(),
  /** Page backward from (exclusive) this message id. */
  beforeId: z.number().int().optional(),
  /** Centre the page on this message id (search hits). */
  aroundId: z.number().int().optional(),
  limit: z.number().int().min(1).max(1000).default(200),
  /**
   * With `afterId`: the first of this session's messages the caller holds. The page then says what the session
   * shows from it through `afterId` (`held`), so a caller that appends "what came after" learns that another
   * program rewound or compacted rows it already shows.
   */
  sinceId: z.number().int().optional(),
  /**
   * The session is read as an earlier segment of a compression chain, followed by this session (its continuation):
   * the page leaves out the rows the continuation carries copies of (the kept tail after its summary, rows cloned
   * into it), so the chain reads each message once. A session that does not continue this one changes nothing.
   */
  carriedBy: SessionId.optional()
})
export type MessageQuery = z.input<typeof MessageQuery>
/** The visible messages of a session in an id range, and how many of them are compacted: a cheap fingerprint. */
const HeldRange = z.object({ visible: z.number().int(), compacted: z.number().int() })
export const MessagePage = z.object({
  items: z.array(Message),
  hasMoreBefore: z.boolean(),
  hasMoreAfter: z.boolean(),
  held: HeldRange.optional()
})
export type MessagePage = z.infer<typeof MessagePage>

export const SessionRef = z.object({
  id: z.string(),
  title: z.string().nullable(),
  kind: SessionKind,
  startedAt: z.number(),
  endReason: z.string().nullable(),
  messageCount: z.number().int(),
  /**
   * In a compression chain (`lineage.chain`): the messages the chain's transcript shows of this segment. An earlier
   * segment leaves out the rows its continuation carries copies of, so this is fewer than `messageCount` there
   * (hidden notes aside); the open session's own count is all it shows.
   */
  chainMessages: z.number().int().optional()
})
export type SessionRef = z.infer<typeof SessionRef>

export const ModelUsage = z.object({
  model: z.string(),
  provider: z.string(),
  task: z.string(),
  /** The route's endpoint (`billing_base_url`): two rows of one model and provider can differ only by it. */
  baseUrl: z.string().optional(),
  /** `billing_mode`, the last part of a route's identity. */
  mode: z.string().optional(),
  apiCalls: z.number().int(),
  tokens: Tokens,
  cost: Money,
  customPrice: z.boolean().optional()
})
export type ModelUsage = z.infer<typeof ModelUsage>

export const SessionDetail = z.object({
  summary: SessionSummary,
  lineage: z.object({
    /** Compression chain, root first; contains this session. */
    chain: z.array(SessionRef),
    parent: SessionRef.nullable(),
    branches: z.array(SessionRef),
    delegateChildren: z.array(SessionRef),
    /** Children that are neither: a tool's, a reset's, unmarked ones (the list shows them only with its filter). */
    otherChildren: z.array(SessionRef)
  }),
  usage: z.array(ModelUsage),
  cwd: z.string().nullable(),
  gitBranch: z.string().nullable(),
  apiCallCount: z.number().int(),
  /** The system prompt the session's latest turn used (persona, memory, instructions), as the home stores it. */
  systemPrompt: z.string().nullable().optional()
})
export type SessionDetail = z.infer<typeof SessionDetail>

export const SessionKey = z.object({ profile: ProfileName, sessionId: SessionId })
export type SessionKeyInput = z.infer<typeof SessionKey>

export const SessionUpdate = z.object({
  profile: ProfileName,
  sessionId: SessionId,
  title: z.string().max(512).nullable().optional(),
  archived: z.boolean().optional(),
  pinned: z.boolean().optional()
})
export type SessionUpdate = z.infer<typeof SessionUpdate>

export const SearchQuery = z.object({
  profile: ProfileScope.default('all'),
  /** Free text; sanitized and capped at 2,048 characters by the store, never an FTS syntax error. */
  query: z.string().max(10_000),
  limit: z.number().int().min(1).max(200).default(50),
  /** The Sessions page's filters, applied to the hits as to the list (absent = not filtered). */
  sources: z.array(z.string().min(1)).max(32).optional(),
  archived: z.enum(['exclude', 'include', 'only']).optional(),
  /** Epoch seconds, inclusive bounds on the matching message's time. */
  from: z.number().optional(),
  to: z.number().optional(),
  idPrefix: z.string().max(128).optional(),
  /** false: no hits in delegate children (subagent runs). */
  includeChildren: z.boolean().optional()
})
export type SearchQuery = z.input<typeof SearchQuery>
export const SnippetPart = z.object({ text: z.string(), hit: z.boolean() })
export const SearchHit = z.object({
  profile: ProfileName,
  sessionId: z.string(),
  sessionTitle: z.string().nullable(),
  messageId: z.number().int(),
  role: z.string(),
  timestamp: z.number(),
  snippet: z.array(SnippetPart),
  /** The tip of the compression chain whose earlier segment holds this hit: a chain is one result, under it. */
  chainId: z.string().optional()
})
export type SearchHit = z.infer<typeof SearchHit>
/** Hits grouped by session (message-hit count; `titleMatch` when the session's title matched). */
export const SearchSessionGroup = z.object({
  profile: ProfileName,
  sessionId: z.string(),
  title: z.string().nullable(),
  hits: z.number().int(),
  titleMatch: z.boolean()
})
export type SearchSessionGroup = z.infer<typeof SearchSessionGroup>
export const SearchResult = z.object({
  hits: z.array(SearchHit),
  sessions: z.array(SearchSessionGroup).optional(),
  /** Why nothing could be searched (e.g. a malformed query), or why a `^` query found nothing, for the user. */
  message: z.string().optional(),
  /**
   * For the user: how typed text FTS5 has no meaning for was read (a leading `+`, unbalanced parentheses), and which
   * terms were not a word search (trigram substring or complete scan).
   */
  fallback: z.string().optional(),
  unavailable: z.array(ProfileProblem).optional(),
  notices: z.array(ProfileProblem).optional()
})
export type SearchResult = z.infer<typeof SearchResult>

export const ProfileInfo = z.object({
  name: ProfileName,
  home: z.string(),
  isDefault: z.boolean(),
  /**
   * The profile the user's home names (a profile folder given as the home, else `<root>/active_profile`, as
   * `hermes profile use` sets it), else `default`: exactly one profile has it. A new chat under "All" goes there.
   */
  isActive: z.boolean().optional(),
  sessionCount: z.number().int(),
  /** Why this profile cannot be served (e.g. a corrupt state.db), or absent. */
  error: z.string().optional(),
  /** Something to show with this profile's data (e.g. a schema newer than Caduceus knows), or absent. */
  notice: z.string().optional()
})
export type ProfileInfo = z.infer<typeof ProfileInfo>
