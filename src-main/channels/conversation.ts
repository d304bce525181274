/**
 * Conversations that stay whole (hermes-channels §1). Chat UIs resend the whole history every turn and no session
 * header; upstream keys such a conversation on its system prompt + first user message, so the session id is derived
 * the same way here (a conversation can move between the two servers). The stored session is compared with the
 * request's history to decide what this request is: a new conversation, the next turn, a retry of a turn that failed
 * unanswered, or an edited/regenerated history, which continues in a branch instead of silently rewriting the stored
 * one. Every request runs the agent, as upstream's does: a stored reply is never handed to another request (two
 * callers can send the same first message; a chat UI's Regenerate must get a new answer).
 *
 * What a real client changes between the turns of one conversation, and what each becomes here:
 * - The system message (Open WebUI's date/time variables, its memory feature's "user context", RAG put into the system
 *   message; any UI's edited persona): the derived id changes with it, and upstream starts a session per turn. Here the
 *   conversation is recognised by its user/assistant history instead (`recognise`): the stored session whose turns the
 *   history agrees with, through the first reply to a user message (this server's own text), is continued. The system
 *   text stays per request (never stored): the model reads the new one on this turn.
 * - Retrieved context put into the last user message (Open WebUI's default RAG template, before or after what the user
 *   typed) and left out when that message is sent back: the stored message is matched with it (`withContext`), and the
 *   recognition above finds the session that stored the decorated first message (upstream splits it in two).
 * - The whole list resent (the official `openai` SDKs, LibreChat, Open WebUI): the next turn of the same session.
 * - Regenerate (the history without the last reply, its user message sent again): never appended as a second answer
 *   to the stored session; it runs in a branch that holds the history up to that message.
 * - An earlier message edited: a branch from the stored session, holding the turns before the edit.
 * - An empty assistant bubble (a failed or stopped turn): left out on both sides (`said`).
 * - A reply the user stopped (Open WebUI's Stop: the client hangs up mid-stream): sent back as far as it reached the
 *   client, a beginning of the stored text; the same turn, as upstream's derived id keeps the session.
 * - The oldest messages dropped to fit the client's context window (LibreChat, SillyTavern): the first message is then
 *   another one every turn, and upstream starts a session per turn; here the session whose latest reply the history
 *   ends with, holding all of it, is continued. A Regenerate or edit of such a history branches from the session
 *   holding all of it (the branch holds what the client sent).
 * Not recognised: a history with none of this server's replies in it (a new conversation, under its derived id).
 */
import { createHash, randomUUID } from 'node:crypto'
import type { ContentParts } from './gateway-face'
import { pyRepr } from '@shared/contract/py-text'
import { storedPartsText } from '@shared/contract'

export interface Turn {
  role: 'user' | 'assistant'
  /** The text as the store shows it (images as placeholders): what turns are compared on. */
  content: string
  /** A message with images: its parts (sent to the provider; stored as text with each image as "[screenshot]"). */
  parts?: ContentParts
}

export interface StoredTurn extends Turn {
  /** Message row id (to answer an already stored user message); an assistant turn's: its last row's, the final reply. */
  id: number
  /** The ids of the rows whose text the turn holds, in order (an assistant turn's text before a tool call, then more). */
  rows: number[]
  /** Epoch seconds. */
  at: number
  /**
   * An assistant turn's other face: `content` is all its text as the stream sent it (text before a tool call, then
   * the final reply), `final` the final reply alone, which is what a non-streaming answer carried.
   */
  final?: string
  /**
   * An assistant turn that ends with a reply stopped mid-stream (a client's Stop: it hung up). The client shows only
   * what reached it before it hung up, a beginning of what the stream had sent by then.
   */
  stopped?: boolean
}

/** The host's view of the profile's stored sessions (channels/ cannot import store/). */
export interface ConversationSessions {
  /**
   * The user/assistant text turns of a stored session, or null when it does not exist. `whole: false` when the
   * stored history cannot be compared (compressed or very long): the conversation then simply continues.
   */
  turns(sessionId: string): { turns: StoredTurn[]; whole: boolean } | null
  /**
   * A batch of the session's turns before the row `beforeRow` (read along its compression chain as `turns` reads it),
   * latest last; `more` when older ones are left (the batch's first turn may then have begun earlier). What a branch
   * from a session too long to compare whole pairs its older copies with, one bounded read at a time.
   */
  turnsBefore(sessionId: string, beforeRow: number): { turns: StoredTurn[]; more: boolean }
  /** Sessions branched from this one by the API server. */
  branches(sessionId: string): string[]
  /**
   * The API server's sessions whose first user message is `text` (compared trimmed), or `text` with context joined to
   * it by a line break, newest first: those a conversation may be stored in when its derived id does not name it.
   */
  opening(text: string): string[]
  /** The API server's sessions whose latest reply ends with `tail` (compared trimmed), newest first. */
  replying(tail: string): string[]
  /** The API server's sessions with any reply (not only their latest) ending with `tail` (trimmed), newest first. */
  replied(tail: string): string[]
  /**
   * Create an `api_server` session holding these turns (a branch names its parent). A turn with `copyOf` is the parent's
   * message those rows hold, copied into the branch: it keeps their identity (v31), as upstream's branch copies do.
   */
  seed(sessionId: string, turns: SeedTurn[], opts: { parent?: string; model?: string }): Promise<void>
  /**
   * After a chat UI's background task (task-request.ts) ran in sessions of its own (`ran`: the one it started in, and
   * the continuation a compression during it moved to): their usage is recorded on the conversation it quoted as
   * routes of `task`, and they are deleted; with no conversation (or that one gone meanwhile) they are kept, hidden
   * from every session list. Resolves to the session the task is now recorded in.
   */
  settleTask(ran: string[], conversation: string | undefined, task: string): Promise<string>
  /**
   * Runs a planning attempt again, off the event loop, while another program's commit blocks reading the store (a
   * rollback-journal home). An attempt reads and claims in one tick and lets go of its claims when it fails, so
   * nothing is held between attempts and concurrent requests claim as they would without the lock.
   */
  retrying<T>(attempt: () => Promise<T>): Promise<T>
}

/** A turn a new session is seeded with; `copyOf`: the parent's rows it copies, in the order their text comes. */
export type SeedTurn = Turn & { copyOf?: number[] }

export type Plan =
  | { kind: 'new'; sessionId: string }
  | { kind: 'continue'; sessionId: string }
  /** The stored session ends with this user message unanswered (a retried failure): answer it. */
  | { kind: 'answer'; sessionId: string; messageId: number }

/**
 * Upstream's id: `api-` + the first 16 hex of SHA-256 of `system + "\n" + first user message`, where a first message
 * with images is its list of parts as Python writes it (test/fixtures/upstream/api-session-ids).
 */
function deriveSessionId(system: string | null | undefined, firstUser: string | ContentParts): string {
  return `api-${sha16(`${system ?? ''}\n${typeof firstUser === 'string' ? firstUser : pyRepr(firstUser)}`)}`
}

const sha16 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex').slice(0, 16)
const REASONING_BLOCK = /<(think|thinking|reasoning|thought)>[\s\S]*?<\/\1>/gi
/**
 * A turn's text as compared (never as stored): chat UIs resend history trimmed and with the reasoning blocks of
 * earlier replies taken out.
 */
export const comparable = (t: string): string => t.replace(REASONING_BLOCK, '').trim()
/**
 * An assistant turn compared without its whitespace: a reply continued after its stream dropped is stored with the
 * kept part trimmed (as upstream stores it), while the client streamed it with its trailing space.
 */
const squash = (t: string) => comparable(t).replace(/\s+/g, '')
/**
 * A user message stored with retrieved context joined to it by a line break, sent back as the user typed it: Open
 * WebUI puts its RAG template (the sources, then the query) before the last user message of the request that
 * retrieved them (older versions after it), and every later request shows that message without them.
 */
const withContext = (stored: string, sent: string) =>
  sent !== '' && (stored.startsWith(`${sent}\n`) || stored.endsWith(`\n${sent}`))
const same = (a: Turn, b: Turn | StoredTurn) =>
  a.role === b.role &&
  (comparable(a.content) === comparable(b.content) ||
    (a.role === 'user' && withContext(comparable(b.content), comparable(a.content))) ||
    (a.role === 'assistant' && squash(a.content) === squash(b.content)) ||
    // A stopped reply sent back as the client got it: a beginning of the stored text (upstream keeps the session).
    (a.role === 'assistant' && 'stopped' in b && !!b.stopped && stoppedShown(a.content, b.content)) ||
    // A message with images is stored as its text with each image as "[screenshot]" (older rows: the parts).
    (a.parts !== undefined && comparable(storedPartsText(a.parts) ?? '') === comparable(b.content)) ||
    ('final' in b && b.final !== undefined && comparable(a.content) === comparable(b.final)))
const stoppedShown = (sent: string, stored: string) => squash(sent) !== '' && squash(stored).startsWith(squash(sent))
const MAX_DEPTH = 16

/**
 * An assistant turn with no text is left out of the comparison on both sides: a chat UI keeps an empty bubble where a
 * turn failed or was stopped before any text (the stored session then ends with the user's message, or nothing was
 * said), and sends it back with the next message. Upstream continues the conversation's session there; so does this.
 */
const said = (t: Turn): boolean => t.role !== 'assistant' || t.parts !== undefined || comparable(t.content) !== ''

/**
 * How far the request's history and the stored turns agree: `k`, the first request turn the stored ones do not have
 * (history.length when they hold all of it), and `j`, where the stored turns stand at that point.
 *
 * A continued reply (SillyTavern's or Open WebUI's "Continue": the request ended with the assistant's own unfinished
 * text, stored as the user's message of that turn, as upstream stores it) comes back on the next resend as one
 * assistant message, the text continued followed by the continuation. So a request assistant turn that does not match
 * the stored turn before it may stand for a run of stored turns: the answer being continued (when it was stored), then
 * one or more continue messages, each the beginning of that reply, each followed by its continuation. A reply that
 * starts with the stored answer is that answer continued where this session did not see it.
 */
function align(history: Turn[], stored: StoredTurn[]): { k: number; j: number; copied: number[][] } {
  let j = 0
  // for each request turn that agrees, the stored rows its text is: what a branch seeded with it copies
  const copied: number[][] = []
  for (let i = 0; i < history.length; i++) {
    const h = history[i]!
    if (stored[j] && same(h, stored[j]!)) {
      copied.push(rowsShown(h, stored[j]!))
      j++
      continue
    }
    const run = h.role === 'assistant' ? continuedRun(comparable(h.content), stored, j) : 0
    if (!run) return { k: i, j, copied }
    copied.push(stored.slice(j, j + run).flatMap((t) => t.rows))
    j += run
  }
  return { k: history.length, j, copied }
}

/**
 * What a branch from a session too long or too compressed to compare whole copies: its latest turns (those read, from
 * the conversation's live end) matched against the end of the request's history. The read may start inside a turn or
 * with a compression summary, and may end with the message another request is answering: a few turns either side are
 * tried. Nothing is copied when the ends do not agree.
 */
function tailCopies(
  history: Turn[],
  stored: StoredTurn[],
  older: (beforeRow: number) => { turns: StoredTurn[]; more: boolean }
): number[][] {
  for (let end = stored.length; end >= Math.max(1, stored.length - 2); end--)
    for (let from = 0; from <= Math.min(2, end - 1); from++) {
      const tail = stored.slice(from, end)
      const start = history.length - tail.length
      if (start < 0) continue
      const { k, j, copied } = align(history.slice(start), tail)
      if (k === tail.length && j === tail.length) {
        const head = start > 0 ? olderCopies(history.slice(0, start), tail[0]!, older) : []
        return [...history.slice(0, start).map((_, i) => head[i] ?? []), ...copied]
      }
    }
  return []
}

/** Turns either side may hold that the other does not, skipped at one place to find where they agree again. */
const MAX_SKIP = 8
/** Turns in a row that must agree after a difference, for the pairing to go on from there (fewer where one ends). */
const AGREE = 3
/** Stored turns held ahead of the one paired next: enough for a skip and the run that must agree after it. */
const AHEAD = 2 * MAX_SKIP + AGREE

/**
 * The copies of the request's turns before the part a branch's read matched (`history`, all older than `first`, the
 * first stored turn matched): the stored turns before it, read a batch at a time from the newest back, paired turn
 * for turn with the request's from its end back. A long session's every message then keeps its identity in the
 * branch, while no more than a batch (and a few turns) is held at once. A batch's first turn may have begun in the
 * batch before it, so it is read again with that one.
 *
 * Where the two differ (the client edited an early message, left one out, or has one the session does not), the
 * pairing goes on from the nearest place after it, back in time, where both agree again for a few turns in a row:
 * the differing turns are copied without an identity and every other keeps its own. Only where no such place is
 * near does it stop (those turns, and the older ones, are copied without one), as it cannot tell which is which.
 */
function olderCopies(
  history: Turn[],
  first: StoredTurn,
  older: (beforeRow: number) => { turns: StoredTurn[]; more: boolean }
): number[][] {
  const out: number[][] = []
  // the stored turns read and not paired yet, oldest first: the last is the one paired next
  let held: StoredTurn[] = []
  let before = Math.min(...first.rows, first.id)
  let more = true
  const read = () => {
    while (more && held.length <= AHEAD) {
      const batch = older(before)
      const turns = batch.turns.filter(said).slice(batch.more ? 1 : 0)
      more = batch.more && turns.length > 0
      if (!turns.length) break
      before = Math.min(...turns[0]!.rows, turns[0]!.id)
      held = [...turns, ...held]
    }
  }
  // whether the request's turns back from `i` and the held ones back from `j` agree for AGREE turns (or until one ends)
  const agree = (i: number, j: number) => {
    const n = Math.min(AGREE, i + 1, j + 1)
    if (n === 0) return false
    for (let k = 0; k < n; k++) if (!same(history[i - k]!, held[j - k]!)) return false
    return true
  }
  let i = history.length - 1
  while (i >= 0) {
    read()
    const j = held.length - 1
    if (j < 0) break
    const h = history[i]!
    if (same(h, held[j]!)) {
      out[i] = rowsShown(h, held[j]!)
      held.pop()
      i--
      continue
    }
    // one continued reply standing for the run of stored turns that ends here (align's continuedRun, read backwards)
    const run = h.role === 'assistant' ? runEndingAt(comparable(h.content), held) : 0
    if (run) {
      out[i] = held.splice(held.length - run).flatMap((t) => t.rows)
      i--
      continue
    }
    // a difference: the nearest place both agree again, fewest turns skipped, the same number on each side first
    const skip = nearestAgreement(agree, i, j)
    if (!skip) break
    i -= skip.request
    held.length -= skip.stored
  }
  return out
}

/** How many turns to skip on each side, fewest first (an edit, one turn each, before one side's extra turn). */
function nearestAgreement(
  agree: (i: number, j: number) => boolean,
  i: number,
  j: number
): { request: number; stored: number } | null {
  for (let d = 1; d <= 2 * MAX_SKIP; d++) {
    const pairs: Array<[number, number]> = []
    for (let a = 0; a <= Math.min(d, MAX_SKIP); a++) if (d - a <= MAX_SKIP) pairs.push([a, d - a])
    pairs.sort((x, y) => Math.abs(x[0] - x[1]) - Math.abs(y[0] - y[1]))
    for (const [a, b] of pairs) if (agree(i - a, j - b)) return { request: a, stored: b }
  }
  return null
}

/**
 * How many stored turns ending with the last of `held` one continued reply `reply` stands for (0: none): the longest
 * such run, which starts where align's forward read starts it (with the answer continued, not its echo).
 */
function runEndingAt(reply: string, held: StoredTurn[]): number {
  for (let from = Math.max(0, held.length - 2 * MAX_SKIP); from <= held.length - 2; from++)
    if (continuedRun(reply, held, from) === held.length - from) return held.length - from
  return 0
}

/** The stored rows a request turn shows: the final reply's alone when that is all the client kept of the turn. */
function rowsShown(h: Turn, t: StoredTurn): number[] {
  const finalOnly =
    t.final !== undefined &&
    comparable(h.content) !== comparable(t.content) &&
    comparable(h.content) === comparable(t.final)
  return finalOnly ? [t.id] : t.rows
}

/** How many stored turns from `j` one continued assistant reply `reply` stands for (0: none). */
function continuedRun(reply: string, stored: StoredTurn[], j: number): number {
  let best = 0
  let echoes = 0
  for (let e = j; e < stored.length; e++) {
    const t = stored[e]!
    const text = comparable(t.content)
    if (t.role === 'user') {
      if (!text || !reply.startsWith(text)) break
      echoes++
    } else {
      if (!reply.includes(text) && !(t.final !== undefined && reply.includes(comparable(t.final)))) break
      const last = reply.endsWith(text) || (t.final !== undefined && reply.endsWith(comparable(t.final)))
      if (echoes > 0 && last) best = e - j + 1
      // The stored answer, continued in another session: SillyTavern's default Continue adds a system nudge, which
      // makes it another conversation (upstream's too), and the reply comes back here with the continuation added.
      else if (e === j && reply.startsWith(text)) best = 1
    }
  }
  return best
}

/** Where a conversation its derived id does not name is stored: the session, and how many of its turns come first. */
type Found = { id: string; offset: number }

/**
 * The stored session a request's history belongs to when the id derived from it does not name one that agrees with all
 * of it: the system message changed (a date in it, retrieved context, the UI's memory), or the first message was
 * stored with retrieved context the client no longer sends. Candidates share the first user message; one counts only
 * when it agrees with the history through the first reply to a user message (this server's own text: no other
 * conversation has it), and further than the derived session does. The one agreeing furthest wins; among equals, one
 * the request would continue (nothing stored past the history but, at most, the message retried), then the newest.
 * The plan then treats it as it would the derived session: continued, answered, or branched from on a regenerate or
 * an edit.
 *
 * Failing that, a client that dropped the conversation's oldest messages to fit its context window (LibreChat's
 * context limit, SillyTavern's): a session whose latest reply the history ends with, holding the whole history after
 * some turns of its own and nothing past it but, at most, the message retried (continued or answered there). Failing
 * that too, the same client's Regenerate or edit of a turn before the latest: a session holding the whole history,
 * ending with one of its replies, after some turns of its own, with more stored past it (the plan branches from it).
 */
function recognise(
  turns: ConversationSessions['turns'],
  lookup: { openings: () => string[]; replies: (tail: string) => string[]; replied: (tail: string) => string[] },
  history: Turn[],
  derived: string
): Found | undefined {
  // The first reply to a user message: a greeting before it (SillyTavern's character card) is the client's own text.
  const firstUser = history.findIndex((t) => t.role === 'user')
  const reply = history.findIndex((t, i) => i > firstUser && t.role === 'assistant')
  if (firstUser < 0 || reply < 0) return undefined
  const comparedTurns = (id: string) => {
    const stored = turns(id)
    return stored?.whole ? stored.turns.filter(said) : null
  }
  const agreement = (id: string) => {
    // a session that cannot be compared simply continues when its id is the derived one, and is never a candidate
    if (id === derived && turns(id)?.whole === false) return { k: history.length, rest: 0 }
    const s = comparedTurns(id)
    if (!s) return null
    const { k, j } = align(history, s)
    return { k, rest: s.length - j }
  }
  const own = agreement(derived)?.k ?? 0
  if (own === history.length) return undefined
  let best: { id: string; k: number; continues: boolean } | undefined
  for (const id of lookup.openings()) {
    if (id === derived) continue
    const a = agreement(id)
    if (!a || a.k <= own || a.k <= reply) continue
    const continues = a.k === history.length && a.rest <= 1
    if (!best || a.k > best.k || (a.k === best.k && continues && !best.continues)) best = { id, k: a.k, continues }
  }
  if (best) return { id: best.id, offset: 0 }
  const last = comparable(history.findLast((t) => t.role === 'assistant')!.content)
  if (!last) return undefined
  const windowed = (ids: string[], fits: (rest: number) => boolean) => {
    for (const id of ids) {
      const s = comparedTurns(id)
      for (let o = 0; s && o < s.length; o++) {
        if (!same(history[0]!, s[o]!)) continue
        const { k, j } = align(history, s.slice(o))
        if (k === history.length && fits(s.length - o - j)) return { id, offset: o }
      }
    }
    return undefined
  }
  return (
    windowed(lookup.replies(last.slice(-REPLY_TAIL)), (rest) => rest <= 1) ??
    windowed(lookup.replied(last.slice(-REPLY_TAIL)), () => true)
  )
}

/** How much of a reply's end the store is asked for (the rest is compared turn by turn). */
const REPLY_TAIL = 64

/**
 * The stored conversation a chat UI's background task quotes (task-request.ts): the API session whose latest reply is
 * the last reply quoted and whose turns end with the quoted ones up to it (a user message stored after it is the
 * conversation's next turn, begun meanwhile). A quote is the conversation's latest messages, so only its end is
 * compared; a session too long or compressed to compare is taken on its latest reply alone (this server's own text).
 * The newest such; undefined when none is stored (the queries for a conversation's first message, asked before it
 * is sent, quote no reply).
 */
export function quotedConversation(sessions: ConversationSessions, quoted: Turn[]): string | undefined {
  const at = quoted.findLastIndex((t) => t.role === 'assistant' && comparable(t.content) !== '')
  if (at < 0) return undefined
  const upTo = quoted.slice(0, at + 1).filter(said)
  for (const id of sessions.replying(comparable(quoted[at]!.content).slice(-REPLY_TAIL))) {
    const stored = sessions.turns(id)
    if (!stored) continue
    if (!stored.whole) return id
    const s = stored.turns.filter(said)
    const from = s.findLastIndex((t) => t.role === 'assistant') + 1 - upTo.length
    if (from >= 0 && upTo.every((t, i) => same(t, s[from + i]!))) return id
  }
  return undefined
}

/**
 * Where a request without a session header goes. `history` is the request's user/assistant turns before its last
 * user message `text`. `claim` takes a session for this request, false when another request of this server runs in
 * it: that request's session is then not continued but branched from (or, not stored yet, left to it), so two
 * requests never answer one stored message or interleave their turns.
 */
export async function planConversation(
  sessions: ConversationSessions,
  input: {
    system: string
    history: Turn[]
    text: string
    /** The last user message's parts, when it has images (it is the first user message when history has none). */
    parts?: ContentParts
    /** `text` is the assistant's own unfinished reply, sent back to be continued (stored as the user's message). */
    continued?: boolean
    nowSec: number
    model?: string
    claim?: (sessionId: string) => boolean
  }
): Promise<Plan> {
  const { text } = input
  const history = input.history.filter(said)
  const claim = input.claim ?? (() => true)
  const first = history.find((t) => t.role === 'user') ?? { content: text, parts: input.parts }
  // One read per session while planning: recognition and the walk below compare the same sessions.
  const read = new Map<string, ReturnType<ConversationSessions['turns']>>()
  const turnsOf = (id: string) => {
    if (!read.has(id)) read.set(id, sessions.turns(id))
    return read.get(id)!
  }
  const derived = deriveSessionId(input.system, first.parts ?? first.content)
  const opening = comparable(first.parts ? (storedPartsText(first.parts) ?? first.content) : first.content)
  const found = recognise(
    turnsOf,
    {
      openings: () => sessions.opening(opening),
      replies: (tail) => sessions.replying(tail),
      replied: (tail) => sessions.replied(tail)
    },
    history,
    derived
  )
  let sid = found?.id ?? derived
  let parent: string | undefined
  // the parent's rows each agreeing request turn shows (by the last alignment with it): a new branch copies them
  let copied: number[][] = []
  const fresh = (from: string) =>
    `api-${sha16(`${from}\n${JSON.stringify(history)}\n${text}\n${input.nowSec}\n${randomUUID()}`)}`
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const stored = turnsOf(sid)
    if (!stored) {
      // Not stored yet but claimed: another request is starting it; this one starts its own.
      if (!claim(sid)) {
        sid = fresh(sid)
        continue
      }
      // Whole from the first request: a client that brings earlier history (or a branch) gets it stored too.
      if (!history.length && !parent) return { kind: 'new', sessionId: sid }
      const turns = parent ? history.map((t, i) => (copied[i]?.length ? { ...t, copyOf: copied[i] } : t)) : history
      await sessions.seed(sid, turns, { model: input.model, ...(parent ? { parent } : {}) })
      return { kind: 'continue', sessionId: sid }
    }
    // (a history the client cut at its start is compared from where it starts in the session it was found in)
    const s = stored.turns.filter(said).slice(sid === found?.id ? found.offset : 0)
    const aligned = stored.whole ? align(history, s) : { k: history.length, j: s.length, copied: [] }
    const { k, j } = aligned
    if (k === history.length) {
      const rest = s.slice(j)
      const turn: Turn = { role: 'user', content: text, ...(input.parts ? { parts: input.parts } : {}) }
      // A Continue of the answer stored last (or of a reply already continued: the run of turns it stands for): that
      // answer is where the conversation stands.
      const continuing = !input.continued
        ? 0
        : rest[0] && same({ ...turn, role: 'assistant' }, rest[0])
          ? 1
          : continuedRun(comparable(text), rest, 0)
      const open = rest.slice(continuing)
      const [u] = open
      if (open.length === 0 && claim(sid)) return { kind: 'continue', sessionId: sid }
      // The last turn failed unanswered: this request (its retry) answers the stored message.
      if (open.length === 1 && u!.role === 'user' && same(turn, u!) && claim(sid))
        return { kind: 'answer', sessionId: sid, messageId: u!.id }
    }
    // Edited, regenerated, resent, or running now: follow the branch that shares more of this history, or start one.
    let best: { id: string; k: number } | null = null
    for (const b of sessions.branches(sid)) {
      const bt = turnsOf(b)
      const bk = bt?.whole ? align(history, bt.turns.filter(said)).k : -1
      if (bk > k && (!best || bk > best.k)) best = { id: b, k: bk }
    }
    parent = sid
    const from = sid
    copied = stored.whole ? aligned.copied : tailCopies(history, s, (row) => sessions.turnsBefore(from, row))
    sid = best?.id ?? fresh(sid)
  }
  return claim(sid) ? { kind: 'continue', sessionId: sid } : { kind: 'new', sessionId: fresh(sid) }
}
