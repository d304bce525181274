import { create } from 'zustand'
import type { CacheDecision, EventPayload, Money, TurnHandle } from '@shared/contract'
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
  status: 'running' | 'completed' | 'interrupted' | 'error'
  /** Streamed content not yet persisted; cleared on each `message_saved` (the transcript shows it from then). */
  text: string
  reasoning: string
  tools: LiveToolCall[]
  notices: string[]
  savedMessageIds: number[]
  /** Set when a save landed on another session (compression rotated the session). */
  rotatedTo: string | null
  error: string | null
  cost: Money | null
  apiCalls: number | null
  stopping: boolean
}

interface TurnsStore {
  byId: Record<string, LiveTurn>
  /** Turn ids in start order. */
  order: string[]
}

export const useTurns = create<TurnsStore>()(() => ({ byId: {}, order: [] }))
const MAX_TURNS = 200

const blank = (h: TurnHandle): LiveTurn => ({
  turnId: h.turnId,
  profile: h.profile,
  sessionId: h.sessionId,
  cache: null,
  model: null,
  demo: false,
  status: 'running',
  text: '',
  reasoning: '',
  tools: [],
  notices: [],
  savedMessageIds: [],
  rotatedTo: null,
  error: null,
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

export function applyTurnStarted(e: EventPayload<'turn.started'>): void {
  upsert(e, () => ({ cache: e.cache, cacheReason: e.cacheReason ?? null, model: e.model, demo: e.demo }))
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
  upsert(e, () => ({ status: e.status, error: e.error ?? null, cost: e.cost, apiCalls: e.apiCalls, stopping: false }))
}

/**
 * Continue a session; the reply arrives as turn.* events (which may beat the handle back). `interrupt`: stop the
 * turn running in the session and run this message next (sessions.resume answers once the new turn started).
 */
export async function sendMessage(
  profile: string,
  sessionId: string,
  text: string,
  { interrupt = false }: { interrupt?: boolean } = {}
): Promise<TurnHandle | null> {
  // the turn it interrupts shows Stopping… until it ends
  const stopped = interrupt
    ? Object.values(useTurns.getState().byId).filter(
        (t) => t.profile === profile && t.sessionId === sessionId && t.status === 'running'
      )
    : []
  for (const t of stopped) upsert(t, () => ({ stopping: true }))
  try {
    const handle = await getApi().call('sessions.resume', {
      profile,
      sessionId,
      text,
      ...(interrupt ? { interrupt } : {})
    })
    upsert(handle, () => ({}))
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
  if (!t || t.status !== 'running') return
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
