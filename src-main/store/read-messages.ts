/** Transcript reads: contract message pages and OpenAI-style history for rebuilding an agent. */
import type Database from 'better-sqlite3'
import { stmt, type AllColumns } from './stmt-cache'
import {
  mergeSummaryInto,
  rowSummary,
  splitMergedSummary,
  summaryMessageText,
  type CallUsage,
  type Message,
  type MessagePage,
  type ToolCall
} from '@shared/contract'
import { moneyFromTurn, type TurnCostStatus } from '@shared/contract/money'
import type { ConversationMessage } from './types'
import { num, numOrNull, safeJson } from './util'
import { cutRow, PAGE_COLS, withinBudget } from './read-message-text'
import { displayContent } from './content-codec'
import { currentColumns } from './reconcile'
import { hiddenMessageSql } from './sql'
import type { messages } from './schema'
import {
  hasIdentity,
  IDENTITY_COLUMNS,
  keepingCalls,
  MessageIdentity,
  uidsOfRow,
  type IdentityRow
} from './message-identity'
import { carriedRowIds, openingCopyIds } from './chain-carried'

/** A message as the page and history statements select it: its columns (some cut) and computed ones beside them. */
type MessageFields = AllColumns<typeof messages>

const COLS = `id, session_id, role, content, tool_calls, tool_call_id, tool_name, reasoning, reasoning_content, timestamp,
  token_count, finish_reason, display_kind, api_content`
// "Visible" per upstream display rules: active rows plus compacted ones kept for display, never a row no upstream
// client shows (sql.ts hiddenMessageSql: display_kind 'hidden', a "[System:" note stored as a user turn).
const VISIBLE = `(COALESCE(active, 1) = 1 OR compacted = 1) AND NOT ${hiddenMessageSql('')}`

/** Accepts upstream's OpenAI shape and the flat contract shape; anything malformed becomes null. */
export function parseToolCalls(text: unknown): ToolCall[] | null {
  return callsOf(safeJson(text))
}

/** The readable calls of a decoded `tool_calls` list (an entry with no name is left out); null when there are none. */
function callsOf(v: unknown): ToolCall[] | null {
  if (!Array.isArray(v)) return null
  const out: ToolCall[] = []
  for (const c of v) {
    if (!c || typeof c !== 'object') continue
    const fn = (c as { function?: { name?: unknown; arguments?: unknown } }).function
    const name = fn?.name ?? (c as { name?: unknown }).name
    const args = fn?.arguments ?? (c as { arguments?: unknown }).arguments
    if (typeof name !== 'string') continue
    out.push({
      id: String((c as { id?: unknown }).id ?? ''),
      name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {})
    })
  }
  return out.length ? out : null
}

const tokenOf = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)

/** `display_metadata.usage` as the agent writes it (turn-loop); anything malformed is no usage. */
function callUsageOf(json: unknown): CallUsage | undefined {
  const u = safeJson(json) as Record<string, unknown> | null
  if (!u || typeof u !== 'object' || Array.isArray(u)) return undefined
  const t = (u.tokens ?? {}) as Record<string, unknown>
  const cost = typeof u.costUsd === 'number' && Number.isFinite(u.costUsd) ? u.costUsd : null
  const status: TurnCostStatus = u.costStatus === 'partial' ? 'partial' : cost === null ? 'unpriced' : 'estimated'
  return {
    tokens: {
      input: tokenOf(t.input),
      output: tokenOf(t.output),
      cacheRead: tokenOf(t.cacheRead),
      cacheWrite: tokenOf(t.cacheWrite),
      reasoning: tokenOf(t.reasoning)
    },
    cost: moneyFromTurn({ costUsd: cost, costStatus: status, apiCalls: 1 }),
    model: typeof u.model === 'string' ? u.model : null
  }
}

/**
 * A row's tool calls, and whether its non-empty `tool_calls` value is malformed: it does not decode (once, as upstream
 * decodes it) to a list, or some entry of the list is no call that can be shown (no name) — all of them left out would
 * otherwise read as a message with nothing in it. A page leaves a long value out (read-message-text.ts) and says in
 * `tool_calls_list` whether it is one.
 */
function readCalls(r: Record<string, unknown>): { calls: ToolCall[] | null; malformed: boolean } {
  const v = safeJson(r.tool_calls)
  const calls = callsOf(v)
  const text = typeof r.tool_calls === 'string' && r.tool_calls !== ''
  const malformed =
    r.tool_calls_list === 0 || (text && !Array.isArray(v)) || (Array.isArray(v) && v.length > (calls?.length ?? 0))
  return { calls, malformed }
}

/**
 * A row whose text is laid out as a summary merged into a kept message with nothing else to say so: upstream v21 marks
 * its merged rows no other way (no `_compressed_summary` column), and merges into an assistant reply as readily as into
 * a question. Marked, the transcript shows the message's own words with the summary folded, whatever the role.
 */
const mergedLayout = (r: Record<string, unknown>) =>
  (r.role === 'user' || r.role === 'assistant') && typeof r.content === 'string' && !!splitMergedSummary(r.content)

function toMessage(r: Record<string, unknown>): Message {
  const usage = r.usage_json != null ? callUsageOf(r.usage_json) : undefined
  const { calls, malformed } = readCalls(r)
  return {
    ...(usage ? { usage } : {}),
    ...(malformed ? { toolCallsMalformed: true as const } : {}),
    // Only pages select it: a row shown while inactive is a compacted one (VISIBLE lets no other inactive row in).
    ...(r.out_of_context ? { compacted: true as const } : {}),
    // A compression summary merged into a kept message (the agent's compression.ts): the transcript folds it.
    ...(r.summary_merged === 1 || mergedLayout(r) ? { summaryMerged: true as const } : {}),
    // v31's marker column, where the home has it (pages select it so): the authority for "this row is a summary"
    ...(r.compressed_summary === 1 ? { compressedSummary: true as const } : {}),
    id: num(r.id),
    sessionId: String(r.session_id),
    role: String(r.role),
    content: displayContent(r.content),
    toolCalls: calls,
    toolCallId: (r.tool_call_id as string | null) ?? null,
    toolName: (r.tool_name as string | null) ?? null,
    reasoning: ((r.reasoning ?? r.reasoning_content) as string | null) ?? null,
    timestamp: num(r.timestamp),
    tokenCount: numOrNull(r.token_count),
    finishReason: (r.finish_reason as string | null) ?? null,
    displayKind: (r.display_kind as string | null) ?? null
  }
}

export interface PageOptions {
  afterId?: number
  beforeId?: number
  aroundId?: number
  limit?: number
  /** With afterId: count what the session shows in [sinceId, afterId] (`held`: the caller's check for a rewind). */
  sinceId?: number
  /**
   * The session is read as an earlier segment of a compression chain whose next segment is this one: the rows that
   * segment carries copies of are left out (chain-carried.ts), so the chain shows each message once.
   */
  carriedBy?: string
}

/**
 * The rows a page of a chain's part leaves out, so the chain shows each message once: those the next part carries
 * copies of (`carriedBy`), and — a continuation's own — its copies of its parent's opening messages, which the parent
 * shows where they were said (chain-carried.ts). Rows stay as their writer stored them: only the reading leaves out.
 */
function leftOut(db: Database.Database, sessionId: string, carriedBy?: string): number[] {
  return [...(carriedBy ? carriedRowIds(db, sessionId, carriedBy) : []), ...openingCopyIds(db, sessionId)]
}

/**
 * How many rows the pages of `sessionId` show in all, read with `carriedBy` as messagePage takes it: its visible
 * rows (compacted ones too, hidden notes not), less the rows another part of its chain shows (leftOut).
 */
export function shownCount(db: Database.Database, sessionId: string, carriedBy?: string): number {
  const carried = leftOut(db, sessionId, carriedBy)
  const shown = carried.length ? ` AND id NOT IN (SELECT value FROM json_each(?))` : ''
  return num(
    stmt<number>(db, `SELECT COUNT(*) FROM messages WHERE session_id = ?${shown} AND ${VISIBLE}`)
      .pluck()
      .get(...(carried.length ? [sessionId, JSON.stringify(carried)] : [sessionId]))
  )
}

/** Default (no anchor) is the LATEST page, as a chat view opens at the bottom; items are always ascending. */
export function messagePage(db: Database.Database, sessionId: string, o: PageOptions = {}): MessagePage {
  const limit = Math.max(1, Math.min(1000, Math.floor(o.limit ?? 200)))
  // v31's `_compressed_summary` where the home has it (merged-summary.ts rowSummary: the authority when set)
  const cols = currentColumns(db, 'messages').has('_compressed_summary')
    ? `${PAGE_COLS}, _compressed_summary AS compressed_summary`
    : PAGE_COLS
  // a page opened at a row (a search hit) shows that row, even one another part of the chain shows too
  const carried = leftOut(db, sessionId, o.carriedBy).filter((id) => id !== o.aroundId)
  // a chain's part: the rows another part shows are not shown here (bound after the session id)
  const shown = carried.length ? ` AND id NOT IN (SELECT value FROM json_each(?))` : ''
  const by = (id: string): unknown[] => (carried.length ? [id, JSON.stringify(carried)] : [id])
  // Long fields arrive cut (previews + lengths) and the page within its size budget: see read-message-text.ts.
  // LIMIT as a literal (an integer clamped above): SQLite 3.53 re-prepares a statement each time a bound LIMIT changes.
  const fwd = (n: number) =>
    stmt<MessageFields>(
      db,
      `SELECT ${cols} FROM messages WHERE session_id = ?${shown} AND ${VISIBLE} AND id > ? ORDER BY id LIMIT ${n}`
    )
  const back = (n: number) =>
    stmt<MessageFields>(
      db,
      `SELECT ${cols} FROM messages WHERE session_id = ?${shown} AND ${VISIBLE} AND id < ? ORDER BY id DESC LIMIT ${n}`
    )
  let rows: MessageFields[]
  let from: 'start' | 'end' | number = 'end'
  if (o.afterId !== undefined) {
    rows = fwd(limit).all(...by(sessionId), o.afterId)
    from = 'start'
  } else if (o.aroundId !== undefined) {
    const before = Math.floor(limit / 2)
    const older = back(before)
      .all(...by(sessionId), o.aroundId)
      .reverse()
    rows = [...older, ...fwd(limit - before).all(...by(sessionId), o.aroundId - 1)]
    from = older.length
  } else
    rows = back(limit)
      .all(...by(sessionId), o.beforeId ?? Number.MAX_SAFE_INTEGER)
      .reverse()
  const items = withinBudget(
    rows.map((r) => cutRow(db, toMessage(r), r)),
    from
  )
  const exists = (op: '<' | '>', id: number) =>
    stmt(db, `SELECT 1 FROM messages WHERE session_id = ?${shown} AND ${VISIBLE} AND id ${op} ? LIMIT 1`).get(
      ...by(sessionId),
      id
    ) !== undefined
  const first = items[0]?.id,
    last = items[items.length - 1]?.id
  const held =
    o.afterId !== undefined && o.sinceId !== undefined
      ? stmt<{ visible: number; compacted: number }>(
          db,
          `SELECT COUNT(*) AS visible, COALESCE(SUM(COALESCE(active, 1) = 0), 0) AS compacted FROM messages
           WHERE session_id = ?${shown} AND ${VISIBLE} AND id >= ? AND id <= ?`
        ).get(...by(sessionId), o.sinceId, o.afterId)!
      : undefined
  return {
    items,
    hasMoreBefore: first !== undefined ? exists('<', first) : false,
    hasMoreAfter: last !== undefined ? exists('>', last) : false,
    ...(held ? { held } : {})
  }
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

export function conversation(
  db: Database.Database,
  sessionId: string,
  repairAlternation = false,
  afterId = 0
): ConversationMessage[] {
  // reasoning_details is read where the home has the column (every upstream schema this app opens does).
  const have = currentColumns(db, 'messages') // every turn reads its conversation: read again only after a schema change
  const details = have.has('reasoning_details') ? ', reasoning_details' : ''
  // v31's identity travels with the message, so a copy the agent writes of it (a compression continuation) keeps it.
  const identity = hasIdentity(have)
  // v31's summary flag, where the home has it: a later compression tells an earlier summary by it (rowSummary)
  const flag = have.has('_compressed_summary') ? ', _compressed_summary' : ''
  const rows = stmt<MessageFields & Partial<IdentityRow>>(
    db,
    `SELECT ${COLS}${details}${identity ? `, ${IDENTITY_COLUMNS.join(', ')}` : ''}${flag}
       FROM messages WHERE session_id = ? AND id > ? AND COALESCE(active, 1) = 1 ORDER BY id`
  ).all(sessionId, afterId)
  const out: ConversationMessage[] = []
  // a result stored without its call's uid (an older writer's, a lone append) is read with the one its call's row gave
  const pairing = identity ? new MessageIdentity() : null
  for (const r of rows) {
    const role = String(r.role)
    pairing?.read(role, r.tool_calls, r.tool_call_uids)
    if (!ROLES.has(role)) continue // session_meta and other bookkeeping rows are not model history
    // upstream's api_content: the exact text it sent the model when that differs from what it shows (injected memory,
    // a reasoning-only reply promoted there while `content` stays ''); its resume replays it in place of content
    const sent = typeof r.api_content === 'string' && r.api_content !== '' ? r.api_content : null
    const m: ConversationMessage = {
      role: role as ConversationMessage['role'],
      content: sent ?? displayContent(r.content)
    }
    const calls = parseToolCalls(r.tool_calls)
    if (role === 'assistant' && calls) {
      m.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments }
      }))
      // stored with upstream's call_id key (a call a model made): a copy of the row writes it the same way
      if (typeof r.tool_calls === 'string' && r.tool_calls.includes('"call_id": "')) m.modelCalls = true
    }
    if (role === 'tool') {
      m.tool_call_id = String(r.tool_call_id ?? '')
      if (r.tool_name) m.name = String(r.tool_name)
    }
    const reasoning = (r.reasoning ?? r.reasoning_content) as string | null
    if (role === 'assistant' && reasoning) m.reasoning = reasoning
    if (role === 'assistant' && r.finish_reason) m.finish_reason = String(r.finish_reason)
    const kept = role === 'assistant' ? safeJson(r.reasoning_details) : null
    if (Array.isArray(kept)) {
      const blocks = kept.filter((b): b is Record<string, unknown> => !!b && typeof b === 'object' && !Array.isArray(b))
      if (blocks.length) m.reasoning_details = blocks
    }
    const uids = identity ? uidsOfRow(r as IdentityRow) : undefined
    if (uids && role === 'tool' && !uids.toolCallUid) {
      const paired = pairing!.pairOf(r.tool_call_id)
      if (paired) uids.toolCallUid = paired
    }
    if (uids) m.identity = uids
    if (r._compressed_summary === 1 && (role === 'user' || role === 'assistant')) m.compressedSummary = true
    out.push(m)
  }
  return repairAlternation ? repair(out) : out
}

/**
 * Providers reject histories with orphan tool results, unanswered tool calls or doubled user turns
 * (e.g. after a crash mid-turn). Drop orphans, strip unanswered calls, merge consecutive user turns.
 */
export function repair(msgs: ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = []
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]
    if (m.role === 'tool') continue // consumed with its assistant below; anything left here is an orphan
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const results: ConversationMessage[] = []
      let j = i + 1
      for (; j < msgs.length && msgs[j].role === 'tool'; j++) results.push(msgs[j])
      const answered = m.tool_calls.filter((c) => results.some((t) => t.tool_call_id === c.id))
      const keptResults = results.filter(
        (t, k) =>
          answered.some((c) => c.id === t.tool_call_id) &&
          results.findIndex((u) => u.tool_call_id === t.tool_call_id) === k
      )
      const a: ConversationMessage = { ...m, tool_calls: answered.length ? answered : undefined }
      if (!a.tool_calls) delete a.tool_calls
      if (a.identity) a.identity = keepingCalls(a.identity, answered)
      if (a.tool_calls || a.content) out.push(a, ...(a.tool_calls ? keptResults : []))
      i = j - 1
      continue
    }
    const prev = out[out.length - 1]
    if (
      m.role === 'user' &&
      prev?.role === 'user' &&
      typeof prev.content === 'string' &&
      typeof m.content === 'string'
    ) {
      out[out.length - 1] = { ...mergedUsers(prev, m), ...absorbing(prev, m) }
      continue
    }
    out.push(m)
  }
  return out
}

/** Two texts one blank line apart, or the one that is not empty (upstream's merge of user turns). */
const joined = (a: string, b: string) => (a && b ? `${a}\n\n${b}` : a || b)

/**
 * Two consecutive user rows as one. Where either holds a compression summary (rowSummary: v31's flag, or its
 * opening), the merged row holds one too — flagged, as upstream flags a row a summary was merged into — laid out as a
 * summary merged into the rows' own words, so every reader still tells the words from the summary: keeping the first
 * row's flag alone made summary-then-words all summary, and words-then-summary the user's words.
 */
function mergedUsers(prev: ConversationMessage, m: ConversationMessage): ConversationMessage {
  const a = rowSummary('user', prev.content, prev.compressedSummary)
  const b = rowSummary('user', m.content, m.compressedSummary)
  if (!a && !b) return { ...prev, content: joined(prev.content ?? '', m.content ?? '') }
  const summary = joined(a?.summary ?? '', b?.summary ?? '')
  const kept = joined(a ? (a.kept ?? '') : (prev.content ?? ''), b ? (b.kept ?? '') : (m.content ?? ''))
  return {
    ...prev,
    content: kept ? mergeSummaryInto(kept, summary) : summaryMessageText(summary),
    compressedSummary: true
  }
}

/**
 * A merge's identity, upstream's rule: the message whose text comes first keeps its uid and records the uids of what
 * it absorbed (theirs, and what they had absorbed), in text order. Nothing to record when either has no uid.
 */
function absorbing(first: ConversationMessage, next: ConversationMessage): Pick<ConversationMessage, 'identity'> {
  if (!first.identity || !next.identity) return {}
  const absorbed = [
    ...(first.identity.absorbedMessageUids ?? []),
    next.identity.messageUid,
    ...(next.identity.absorbedMessageUids ?? [])
  ]
  return { identity: { ...first.identity, absorbedMessageUids: [...new Set(absorbed)] } }
}
