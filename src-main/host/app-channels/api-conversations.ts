/**
 * The API server's view of a profile's stored conversations (channels/conversation.ts decides; this reads and seeds
 * through the profile's SessionStore, since channels/ cannot import store/).
 */
import { storedPartsText } from '@shared/contract'
import { isCompactionSummary } from '@shared/contract/notice-rows'
import type { ConversationSessions, StoredTurn } from '../../channels'
import type { Services } from '../services'
import { readRetrying, type NewMessage, type SessionStore } from '../../store'

const MAX_COMPARED = 1000
/** Rows a branch of a longer session reads at a time to pair its older copies (conversation.ts olderCopies). */
const OLDER_BATCH = 500
/**
 * Sessions sharing a conversation's first message (or its latest reply's end) that are compared with it, newest first
 * (a common opening such as "hi" is shared by many; the one a client continues is nearly always among its latest).
 */
const MAX_OPENINGS = 16

export function apiConversations(stores: Services['stores'], profile: string): ConversationSessions {
  const store = () => stores.get(profile)
  return {
    turns(sessionId) {
      const s = store()
      if (!s.getSession(sessionId)) return null
      // A compressed or very long session cannot be compared turn by turn: it just continues. Its latest messages, read
      // along its compression chain from the live end (each one once), are what a branch from it copies
      // (conversation.ts tailCopies).
      const { items, compressed, hasMoreBefore } = chainTail(s, sessionId)
      return { turns: storedTurns(items), whole: !hasMoreBefore && !compressed }
    },
    turnsBefore(sessionId, beforeRow) {
      const { items, hasMoreBefore } = chainTail(store(), sessionId, beforeRow, OLDER_BATCH)
      return { turns: storedTurns(items), more: hasMoreBefore }
    },
    branches: (sessionId) => store().branchesOf(sessionId, 'api_server'),
    opening: (text) => store().sessionsOpeningWith(text, 'api_server', MAX_OPENINGS),
    replying: (tail) => store().sessionsReplyingWith(tail, 'api_server', MAX_OPENINGS),
    replied: (tail) => store().sessionsWithReply(tail, 'api_server', MAX_OPENINGS),
    async settleTask(ran, conversation, task) {
      const s = store()
      const ids = [...new Set(ran)].filter((id) => s.getSession(id))
      if (conversation && s.getSession(conversation)) {
        for (const id of ids) await s.foldTaskSession(id, conversation, task)
        return conversation
      }
      for (const id of ids) await s.hideSession(id)
      return ran.at(-1) ?? ''
    },
    // The turn path's read retry (a rollback-journal home another program commits to): the planning is one read.
    retrying: (attempt) => readRetrying(attempt),
    async seed(sessionId, turns, opts) {
      const s = store()
      await s.createSession(sessionId, 'api_server', {
        model: opts.model ?? null,
        profileName: profile,
        parentSessionId: opts.parent ?? null,
        modelConfig: opts.parent ? { _branched_from: opts.parent } : null
      })
      // a compressed parent's turns were read along its chain (chainTail): a copied row may be in any of its segments
      const holders = opts.parent ? chainOf(s, opts.parent) : null
      // A message with images is stored as the turn itself stores one (upstream's agent flush): its text, each image
      // as "[screenshot]"; the base64 never reaches state.db.
      if (turns.length)
        await s.appendMessages(
          sessionId,
          turns.map((t) => ({
            role: t.role,
            content: t.parts ? (storedPartsText(t.parts) ?? t.content) : t.content,
            ...(holders && t.copyOf ? copiedIdentity(s, holders, t.copyOf) : {})
          }))
        )
    }
  }
}

type Items = ReturnType<SessionStore['getMessages']>['items']

/** The user/assistant text turns the messages hold, as the client saw them. */
function storedTurns(items: Items): StoredTurn[] {
  const turns: StoredTurn[] = []
  for (const m of items) {
    // the agent's own "go on" between the parts of a continued reply: the client saw one assistant message
    if (m.role === 'user' && m.displayKind === 'continuation_notice') continue
    // a compression's summary, Caduceus's (marked), upstream v31's (its flag: rowSummary's authority, whatever the
    // opening) or an older upstream's (known by its opening): the model's, never the client's
    if (m.displayKind === 'compression_summary' || isCompactionSummary(m.role, m.content, m.compressedSummary)) continue
    if (m.role === 'user')
      turns.push({ role: 'user', content: m.content ?? '', id: m.id, rows: [m.id], at: m.timestamp })
    else if (m.role === 'assistant' && m.content) {
      // The client saw one assistant message per turn: streamed, all its text (text before a tool call, then the
      // reply) run together; not streamed, the final reply alone.
      const prev = turns.at(-1)
      const final = m.toolCalls?.length ? undefined : m.content
      // a reply stopped mid-stream (turn-loop.ts keeps it so): its client may have got only a beginning of it
      const at = { id: m.id, at: m.timestamp, stopped: m.finishReason === 'interrupted' }
      if (prev?.role === 'assistant')
        turns[turns.length - 1] = {
          ...prev,
          ...at,
          rows: [...prev.rows, m.id],
          content: prev.content + m.content,
          final: final ?? prev.final
        }
      else
        turns.push({
          role: 'assistant',
          content: m.content,
          ...at,
          rows: [m.id],
          ...(final !== undefined ? { final } : {})
        })
    }
  }
  return turns
}

/** The session and the compression continuations after it, in order (just the session when never compressed). */
function chainOf(store: SessionStore, sessionId: string): string[] {
  const chain = store.compressionChainIds(sessionId)
  const at = chain.indexOf(sessionId)
  return at < 0 ? [sessionId] : chain.slice(at)
}

/**
 * The session's latest messages before the row `beforeRow` (at most `limit`) as its conversation reads: along its
 * compression chain from the tip back to it, each part without the rows another part shows (chain-carried.ts). A
 * part's rows all come before its continuation's, so one row id bounds the read in every part.
 */
function chainTail(store: SessionStore, sessionId: string, beforeRow = Number.MAX_SAFE_INTEGER, limit = MAX_COMPARED) {
  const segments = chainOf(store, sessionId)
  let items: Items = []
  let hasMoreBefore = false
  for (let i = segments.length - 1; i >= 0 && items.length < limit; i--) {
    const next = segments[i + 1]
    const page = store.getMessages({
      sessionId: segments[i]!,
      beforeId: beforeRow,
      limit: limit - items.length,
      ...(next ? { carriedBy: next } : {})
    })
    items = [...page.items, ...items]
    hasMoreBefore = page.hasMoreBefore || (i > 0 && items.length >= limit)
  }
  return { items, compressed: segments.length > 1, hasMoreBefore }
}

/**
 * The identity of a branch's copy of the parent's message held by `rows` (v31; nothing on an older home), the rows
 * in one of `holders` (the parent, or its compression chain's segments). One row:
 * its identity, as upstream's branch copy keeps it. Several (an answer's text before a tool call and its reply, now
 * one message): upstream's merge rule — the uid of the row whose text comes first, the others' recorded as absorbed.
 * Only the text is copied, so no call uids come with it.
 */
function copiedIdentity(store: SessionStore, holders: string[], rows: number[]): Pick<NewMessage, 'identity'> {
  const uids = rows.flatMap((id) => {
    for (const sid of holders) {
      const u = store.messageUids(sid, id)
      if (u) return [u]
    }
    return []
  })
  const [first, ...rest] = uids
  if (!first) return {}
  const absorbed = [
    ...(first.absorbedMessageUids ?? []),
    ...rest.flatMap((u) => [u.messageUid, ...(u.absorbedMessageUids ?? [])])
  ]
  return {
    identity: {
      messageUid: first.messageUid,
      ...(absorbed.length ? { absorbedMessageUids: [...new Set(absorbed)] } : {})
    }
  }
}
