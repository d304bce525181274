import { create } from 'zustand'
import type { BusyInputMode, CacheDecision, EventPayload, Money, TurnHandle } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'

export interface LiveToolCall {
  id: string
  name: string
  args: string
  result: string | null
}

export interface LiveTurn {
  turnId: string
  profile: string
  sessionId: string
  cache: CacheDecision | null
  /** What changed when the agent was rebuilt, when the host could say (e.g. a memory provider's identity). */
  cacheReason?: string | null
  model: string | null
  demo: boolean
  /** The turn's channel as a session source: `desktop` is this app's chat; an API or cron turn ends only where it began. */
  source: string | null
  /** `queued`: a message sent mid-turn waiting for the running turn to end (`queuedText`); it runs as this turn. */
  status: 'queued' | 'running' | 'completed' | 'interrupted' | 'error'
  queuedText?: string
  /** Why the host handled a message otherwise than the profile's busy input mode asks (e.g. subagents at work). */
  note?: string | null
  /** Streamed content not yet persisted; cleared on each `message_saved` (the transcript shows it from then). */
  text: string
  reasoning: string
  tools: LiveToolCall[]
  notices: string[]
  savedMessageIds: number[]
  /** Set when a save landed on another session (compression rotated the session). */
  rotatedTo: string | null
  error: string | null
  /** Ended `error` with its reply still cut off but kept (upstream's partial result): shown as "partial". */
  partial: boolean
  cost: Money | null
  apiCalls: number | null
  stopping: boolean
}

interface TurnsStore {
  byId: Record<string, LiveTurn>
  /** Turn ids in start order. */
  order: string[]
  /** Turns dropped here (cancelled queued messages): a turns.active answer read before the cancel must not revive one. */
  dropped: string[]
}

export const useTurns = create<TurnsStore>()(() => ({ byId: {}, order: [], dropped: [] }))
const MAX_TURNS = 200

const blank = (h: TurnHandle): LiveTurn => ({
  turnId: h.turnId,
  profile: h.profile,
  sessionId: h.sessionId,
  cache: null,
  model: null,
  demo: false,
  source: null,
  status: 'running',
  text: '',
  reasoning: '',
  tools: [],
  notices: [],
  savedMessageIds: [],
  rotatedTo: null,
  error: null,
  partial: false,
  cost: null,
  apiCalls: null,
  stopping: false
})

function upsert(h: TurnHandle, fn: (t: LiveTurn) => Partial<LiveTurn>): void {
  useTurns.setState((s) => {
    const cur = s.byId[h.turnId] ?? blank(h)
    const next = { ...cur, ...fn(cur) }
    const order = s.byId[h.turnId] ? s.order : [...s.order, h.turnId].slice(-MAX_TURNS)
    const byId: Record<string, LiveTurn> = {}
    for (const id of order) byId[id] = id === h.turnId ? next : s.byId[id]!
    return { byId, order }
  })
}

/** Not started yet (the event and the request's answer may come in either order; turn.started sets `cache`). */
const waiting = (t: LiveTurn) => t.cache === null && (t.status === 'queued' || t.status === 'running')
const queued = (text: string, note: string | null) => (t: LiveTurn) =>
  waiting(t) ? { status: 'queued' as const, queuedText: text, note } : {}

export function applyTurnQueued(e: EventPayload<'turn.queued'>): void {
  upsert(e, queued(e.text, e.note ?? null))
}

export function applyTurnStarted(e: EventPayload<'turn.started'>): void {
  upsert(e, () => ({
    status: 'running',
    cache: e.cache,
    cacheReason: e.cacheReason ?? null,
    model: e.model,
    demo: e.demo,
    source: e.source ?? null
  }))
}

export function applyTurnDelta(e: EventPayload<'turn.delta'>): void {
  upsert(e, (t) => {
    switch (e.kind) {
      case 'text':
        return { text: t.text + (e.text ?? '') }
      case 'reasoning':
        return { reasoning: t.reasoning + (e.text ?? '') }
      case 'tool_call': {
        const id = e.toolCallId ?? `call-${t.tools.length}`
        const existing = t.tools.find((c) => c.id === id)
        if (existing)
          return {
            tools: t.tools.map((c) =>
              c.id === id ? { ...c, name: e.toolName ?? c.name, args: c.args + (e.text ?? '') } : c
            )
          }
        return { tools: [...t.tools, { id, name: e.toolName ?? 'tool', args: e.text ?? '', result: null }] }
      }
      case 'tool_result': {
        const id = e.toolCallId
        if (id && t.tools.some((c) => c.id === id))
          return { tools: t.tools.map((c) => (c.id === id ? { ...c, result: (c.result ?? '') + (e.text ?? '') } : c)) }
        return {
          tools: [
            ...t.tools,
            { id: id ?? `result-${t.tools.length}`, name: e.toolName ?? 'tool', args: '', result: e.text ?? '' }
          ]
        }
      }
      case 'message_saved':
        return {
          text: '',
          reasoning: '',
          tools: [],
          savedMessageIds: e.messageId != null ? [...t.savedMessageIds, e.messageId] : t.savedMessageIds,
          rotatedTo: e.savedSessionId && e.savedSessionId !== t.sessionId ? e.savedSessionId : t.rotatedTo
        }
      case 'notice':
        return { notices: [...t.notices, e.text ?? ''].slice(-20) }
    }
  })
}

export function applyTurnFinished(e: EventPayload<'turn.finished'>): void {
  // a queued message cancelled before it ran leaves nothing behind
  if (e.status === 'interrupted' && useTurns.getState().byId[e.turnId]?.status === 'queued') return drop(e.turnId)
  upsert(e, () => ({
    status: e.status,
    error: e.error ?? null,
    partial: e.partial === true,
    cost: e.cost,
    apiCalls: e.apiCalls,
    stopping: false
  }))
}

function drop(turnId: string): void {
  useTurns.setState((s) => {
    const dropped = [...s.dropped, turnId].slice(-MAX_TURNS)
    if (!s.byId[turnId]) return { dropped }
    const { [turnId]: _gone, ...byId } = s.byId
    return { byId, order: s.order.filter((id) => id !== turnId), dropped }
  })
}

/**
 * Continue a session; the reply arrives as turn.* events (which may beat the handle back). `busyMode`: a turn runs
 * in the session and the message follows the profile's busy input mode — in `interrupt` that turn shows Stopping…
 * until the host has stopped it (sessions.resume answers once this message's turn started); a queued message shows
 * as a queued turn; a steered one as a notice on the running turn.
 */
export async function sendMessage(
  profile: string,
  sessionId: string,
  text: string,
  { busyMode }: { busyMode?: BusyInputMode } = {}
): Promise<TurnHandle | null> {
  const running = busyMode
    ? Object.values(useTurns.getState().byId).filter(
        (t) => t.profile === profile && t.sessionId === sessionId && t.status === 'running'
      )
    : []
  const stopped = busyMode === 'interrupt' ? running : []
  for (const t of stopped) upsert(t, () => ({ stopping: true }))
  try {
    const r = await getApi().call('sessions.resume', {
      profile,
      sessionId,
      text,
      ...(busyMode ? { whileBusy: true } : {})
    })
    const handle: TurnHandle = { turnId: r.turnId, profile: r.profile, sessionId: r.sessionId }
    // the host queued it (subagents at work, another channel's turn) or steered it: the running turn goes on
    if (r.busy !== 'interrupted') for (const t of stopped) upsert(t, () => ({ stopping: false }))
    if (r.busy === 'queued') upsert(handle, queued(text, r.note ?? null))
    else if (r.busy === 'steered')
      upsert(handle, (t) => ({ notices: [...t.notices, `Added to this turn at its next step: “${text}”`].slice(-20) }))
    else upsert(handle, () => ({}))
    return handle
  } catch (err) {
    for (const t of stopped) upsert(t, () => ({ stopping: false })) // refused (e.g. another channel's turn)
    reportError(err, 'Sending message')
    return null
  }
}

export async function startChat(profile: string, text: string): Promise<TurnHandle | null> {
  try {
    const handle = await getApi().call('sessions.start', { profile, text })
    upsert(handle, () => ({}))
    return handle
  } catch (err) {
    reportError(err, 'Starting chat')
    return null
  }
}

export async function stopTurn(turnId: string): Promise<void> {
  const t = useTurns.getState().byId[turnId]
  if (!t || (t.status !== 'running' && t.status !== 'queued')) return
  upsert(t, () => ({ stopping: true }))
  try {
    await getApi().call('turns.stop', { turnId })
  } catch (err) {
    upsert(t, () => ({ stopping: false }))
    reportError(err, 'Stopping turn')
  }
}

export function turnsForSession(s: TurnsStore, profile: string | null, sessionId: string | null): LiveTurn[] {
  if (!profile || !sessionId) return []
  return s.order
    .map((id) => s.byId[id]!)
    .filter((t) => t.profile === profile && (t.sessionId === sessionId || t.rotatedTo === sessionId))
}

/**
 * What runs or waits on the host now, for a window that just opened or reconnected (events before that were never
 * seen): queued messages and running turns appear, and a turn this window still shows running that ended meanwhile
 * takes its real end, or, when the host no longer remembers it, says it ended while the window was away.
 */
export async function syncTurns(): Promise<void> {
  const s = useTurns.getState()
  const known = s.order.filter((id) => ['queued', 'running'].includes(s.byId[id]!.status))
  let r
  try {
    r = await getApi().call('turns.active', { known })
  } catch {
    return // an older host, or none: what is shown stays until events arrive
  }
  // Events may have arrived since the host answered: what they say is newer than the answer, and is kept.
  const settled = (id: string) => {
    const t = useTurns.getState().byId[id]
    return (
      useTurns.getState().dropped.includes(id) || (t !== undefined && t.status !== 'queued' && t.status !== 'running')
    )
  }
  for (const f of r.finished) if (!settled(f.turnId)) applyTurnFinished(f)
  const accounted = new Set([...r.turns, ...r.finished].map((t) => t.turnId))
  for (const t of r.turns) {
    if (settled(t.turnId)) continue
    if (t.status === 'queued') upsert(t, queued(t.text ?? '', t.note ?? null))
    // a queued message whose turn started while the window was away: a running turn now, no longer a bubble
    else upsert(t, (cur) => ({ status: 'running', queuedText: undefined, source: cur.source ?? t.source }))
  }
  for (const id of known) {
    const t = useTurns.getState().byId[id]
    if (accounted.has(id) || !t || settled(id)) continue
    if (t.status === 'queued') drop(id)
    else upsert(t, () => ({ status: 'interrupted', stopping: false, error: ENDED_AWAY }))
  }
}

const ENDED_AWAY = 'This turn ended while this window was disconnected; the transcript shows what it saved.'
