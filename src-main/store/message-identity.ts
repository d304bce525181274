/**
 * Message identity on a v31 home (NousResearch/hermes-agent schema 31): the four columns upstream's own writer
 * fills on every row it inserts, filled here the same way, so a session Caduceus writes reads there as one of
 * upstream's. Upstream reads them back on every restore: a tool result carries the uid of the call it answers
 * (derived from the assistant row's map when the result row has none), its compressor tells a finished tool round
 * from a newer call reusing the same provider id by those uids, and context engines and pruned-output lookups key
 * on them. An assistant row with calls but no map leaves all its results unpaired there.
 *
 * Rules (observed in upstream's store: its identity codec and the insert path of its message writer):
 * - `message_uid`: the one supplied, else a fresh random one — 32 lowercase hex digits (uuid4's hex);
 * - `tool_call_uids`, on an assistant row with calls: supplied entries kept, every call id not named yet gets a fresh
 *   uid (an id repeated in one response shares one), stored as Python's `json.dumps(…, sort_keys=True)` writes it;
 * - `tool_call_uid`, on a tool result: the one supplied, else the uid the nearest active assistant row after the last
 *   active user row that names its call id gave that id — none when that row has no map (unpaired, never mispaired);
 * - `absorbed_message_uids`: a supplied list kept (unique non-empty strings), as `json.dumps` writes it.
 * Written only where the home has the columns (`hasIdentity`): a v21/v30 home gets no column and no value.
 */
import type Database from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { pyJson } from '@shared/contract/py-text'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { messages } from './schema'
import type { messageIdentity } from './schema/identity'
import { safeJson } from './util'
import type { MessageUids } from './types'

export const IDENTITY_COLUMNS = ['message_uid', 'absorbed_message_uids', 'tool_call_uids', 'tool_call_uid'] as const
type IdentityColumn = (typeof IDENTITY_COLUMNS)[number]
export type IdentityRow = Pick<typeof messageIdentity.$inferSelect, IdentityColumn>

/** Whether the home has v31's identity columns (upstream adds the four together). */
export const hasIdentity = (cols: ReadonlySet<string>): boolean => IDENTITY_COLUMNS.every((c) => cols.has(c))

const mintUid = () => randomBytes(16).toString('hex')
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== ''

/** A provider call id as upstream keys it: trimmed, the part before a `|` (a Responses-API `call|item` pair). */
function callKey(id: unknown): string {
  if (typeof id !== 'string') return ''
  const t = id.trim()
  return t.split('|', 1)[0]!.trim() || t
}

/** A stored call's key: its `call_id` when it has one, else its `id`. */
function keyOfCall(call: unknown): string {
  if (!call || typeof call !== 'object') return ''
  const c = call as { call_id?: unknown; id?: unknown }
  return callKey(c.call_id) || callKey(c.id)
}

/** A value as given, or the JSON a text holds (an export carries the columns as their JSON text). */
const decoded = (v: unknown): unknown => (typeof v === 'string' ? safeJson(v) : v)

type UidMap = Map<string, string | string[]>

/** A call-id → uid map with only well-formed entries (a uid, or a non-empty list of them). */
function uidMap(v: unknown): UidMap {
  const out: UidMap = new Map()
  const o = decoded(v)
  if (!o || typeof o !== 'object' || Array.isArray(o)) return out
  for (const [k, u] of Object.entries(o as Record<string, unknown>)) {
    if (k && (nonEmpty(u) || (Array.isArray(u) && u.length > 0 && u.every(nonEmpty)))) out.set(k, u)
  }
  return out
}

function uidList(v: unknown): string[] {
  const l = decoded(v)
  return Array.isArray(l) ? [...new Set(l.filter(nonEmpty))] : []
}

interface CallOwner {
  keys: string[]
  uids: UidMap
}

/**
 * The identity of rows written to one session in order. Remembers the assistant rows with calls since the last
 * user row, so a tool result written later (in the same batch or a later one) pairs with its call's uid.
 */
export class MessageIdentity {
  #owners: CallOwner[] = []

  /** Picks up where the session's active transcript ends: the calls after its last active user row. */
  static continuing(db: Database.Database, sessionId: string): MessageIdentity {
    const identity = new MessageIdentity()
    const rows = stmt<ColumnsOf<typeof messages, 'tool_calls'> & Pick<IdentityRow, 'tool_call_uids'>>(
      db,
      `SELECT tool_calls, tool_call_uids FROM messages
        WHERE session_id = ? AND active = 1 AND role = 'assistant' AND tool_calls IS NOT NULL
          AND id > COALESCE((SELECT MAX(id) FROM messages WHERE session_id = ? AND active = 1 AND role = 'user'), 0)
        ORDER BY id`
    ).all(sessionId, sessionId)
    for (const r of rows) identity.#remember(decoded(r.tool_calls), uidMap(r.tool_call_uids))
    return identity
  }

  /**
   * The identity columns of the next row: `supplied` holds what the row already carries (an import's fields).
   * Only an active row counts for later pairing, as upstream pairs on its active transcript.
   */
  next(
    role: string,
    toolCalls: unknown,
    toolCallId: unknown,
    supplied: Partial<Record<IdentityColumn, unknown>> = {},
    active = true
  ): IdentityRow {
    const absorbed = uidList(supplied.absorbed_message_uids)
    const uids = uidMap(supplied.tool_call_uids)
    const calls = decoded(toolCalls)
    let paired = nonEmpty(supplied.tool_call_uid) ? supplied.tool_call_uid : null
    if (role === 'assistant' && Array.isArray(calls)) {
      for (const c of calls) {
        const k = keyOfCall(c)
        if (k && !uids.has(k)) uids.set(k, mintUid())
      }
      if (active) this.#remember(calls, uids)
    } else if (role === 'tool' && paired === null && active) paired = this.#resolve(toolCallId)
    else if (role === 'user' && active) this.#owners = []
    return {
      message_uid: nonEmpty(supplied.message_uid) ? supplied.message_uid : mintUid(),
      absorbed_message_uids: absorbed.length ? pyJson(absorbed) : null,
      tool_call_uids: uids.size ? pyJson(Object.fromEntries(uids), { sortKeys: true }) : null,
      tool_call_uid: paired
    }
  }

  /**
   * A stored row read back in order (a restore): remembers what a later result pairs by, mints nothing. A row with
   * calls but no map is remembered too, so its results stay unpaired rather than pair with an earlier call's uid.
   */
  read(role: string, toolCalls: unknown, toolCallUids: unknown): void {
    if (role === 'user') this.#owners = []
    else if (role === 'assistant') this.#remember(decoded(toolCalls), uidMap(toolCallUids))
  }

  /** The uid the nearest remembered row naming `toolCallId` gave it; null when none, or that row has no map. */
  pairOf(toolCallId: unknown): string | null {
    return this.#resolve(toolCallId)
  }

  #remember(calls: unknown, uids: UidMap): void {
    if (Array.isArray(calls) && calls.length) this.#owners.push({ keys: calls.map(keyOfCall), uids })
  }

  /** The nearest row naming the call decides: its uid for it (the last occurrence's), or none without a map. */
  #resolve(toolCallId: unknown): string | null {
    const key = callKey(toolCallId)
    if (!key) return null
    for (let i = this.#owners.length - 1; i >= 0; i--) {
      const owner = this.#owners[i]!
      const occurrences = owner.keys.filter((k) => k === key).length
      if (occurrences === 0) continue
      const uid = owner.uids.get(key)
      if (Array.isArray(uid)) return uid[Math.min(occurrences, uid.length) - 1] ?? null
      return uid ?? null
    }
    return null
  }
}

/**
 * An assistant message's identity once only the calls `kept` are left of it (a repaired history strips the calls no
 * result answers): a call the message no longer names keeps no uid, as upstream's rewrite leaves it.
 */
export function keepingCalls(uids: MessageUids, kept: Array<{ id: string }>): MessageUids {
  if (!uids.toolCallUids) return uids
  const named = new Set(kept.map((c) => callKey(c.id)))
  const { toolCallUids, ...rest } = uids
  const left = Object.entries(toolCallUids).filter(([k]) => named.has(k))
  return left.length ? { ...rest, toolCallUids: Object.fromEntries(left) } : rest
}

/** A caller's identity (camelCase, a copy's) as the columns `next` takes it supplied. */
export function suppliedColumns(uids: Partial<MessageUids> | undefined): Partial<Record<IdentityColumn, unknown>> {
  if (!uids) return {}
  return {
    message_uid: uids.messageUid,
    tool_call_uids: uids.toolCallUids,
    tool_call_uid: uids.toolCallUid,
    absorbed_message_uids: uids.absorbedMessageUids
  }
}

/** A row's identity columns as a message carries them; undefined for a row without a uid (written before v31). */
export function uidsOfRow(row: IdentityRow): MessageUids | undefined {
  if (!nonEmpty(row.message_uid)) return undefined
  const out: MessageUids = { messageUid: row.message_uid }
  const map = uidMap(row.tool_call_uids)
  if (map.size) out.toolCallUids = Object.fromEntries(map)
  if (nonEmpty(row.tool_call_uid)) out.toolCallUid = row.tool_call_uid
  const absorbed = uidList(row.absorbed_message_uids)
  if (absorbed.length) out.absorbedMessageUids = absorbed
  return out
}

/** The identity of one stored row of the session, on a v31 home (undefined elsewhere, or for a row without one). */
export function storedUids(db: Database.Database, sessionId: string, id: number): MessageUids | undefined {
  const row = stmt<IdentityRow>(
    db,
    `SELECT ${IDENTITY_COLUMNS.join(', ')} FROM messages WHERE session_id = ? AND id = ?`
  ).get(sessionId, id)
  return row ? uidsOfRow(row) : undefined
}
