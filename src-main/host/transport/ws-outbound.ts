/**
 * What the host sends one WebSocket client, within a memory budget. Replies are always sent: a reply may take the
 * client's queue past the byte budget by up to one frame (a 40 MB `sessions.export` is a healthy reply), and the
 * client is dropped only when its queue grows past the budget plus the largest frame it is still taking, or stays
 * over the budget without draining for `stallMs`. Events wait while the queue is over budget and go out, in order,
 * once it drains: repeated `sessions.changed` of one profile merge into one; more held than the budget drops the
 * client (it reconnects and reads the state afresh).
 */
import type { WebSocket } from 'ws'
import type { EventEnvelope } from '@shared/contract'

export interface OutboundBudget {
  /** Bytes queued unread beyond which a client gets no more events and no more than one more frame's worth. */
  bytes: number
  /** Calls in flight. */
  calls: number
  /** How long a queue may stay over budget without draining at all. */
  stallMs: number
}
export const DEFAULT_OUTBOUND: OutboundBudget = { bytes: 16 * 1024 * 1024, calls: 256, stallMs: 30_000 }

const TICK_MS = 50

interface Held {
  envelope: EventEnvelope
  bytes: number
}

const asChanged = (e: EventEnvelope) =>
  e.event === 'sessions.changed' ? (e.payload as { profile: string; sessionIds: string[]; parentIds?: string[] }) : null
const union = (a: string[] | undefined, b: string[] | undefined) => [...new Set([...(a ?? []), ...(b ?? [])])]

export function outbound(
  ws: WebSocket,
  budget: OutboundBudget,
  toJson: (value: unknown) => string,
  drop: (why: string) => void
) {
  const held: Held[] = []
  let heldBytes = 0
  /** The largest frame sent since the queue was last within budget: what it may be over by. */
  let largest = 0
  let timer: ReturnType<typeof setInterval> | null = null
  /** Bytes handed to the socket; less what it still holds, what the client has read. */
  let sent = 0
  let read = 0
  let readAt = 0

  const open = () => ws.readyState === ws.OPEN
  const stop = () => {
    if (timer) clearInterval(timer)
    timer = null
  }
  const watch = () => {
    if (timer) return
    read = sent - ws.bufferedAmount
    readAt = Date.now()
    timer = setInterval(tick, TICK_MS)
    timer.unref?.()
  }
  const write = (text: string) => {
    if (ws.bufferedAmount <= budget.bytes) largest = 0
    const size = Buffer.byteLength(text)
    largest = Math.max(largest, size)
    sent += size
    ws.send(text)
    if (ws.bufferedAmount > budget.bytes) watch()
  }
  function tick() {
    if (!open()) return stop()
    const queued = ws.bufferedAmount
    if (sent - queued > read) {
      read = sent - queued
      readAt = Date.now()
    }
    if (queued > budget.bytes) {
      if (Date.now() - readAt >= budget.stallMs) {
        stop()
        return drop('it stopped reading (outbound queue not draining)')
      }
      return
    }
    while (held.length && ws.bufferedAmount <= budget.bytes) {
      const h = held.shift()!
      heldBytes -= h.bytes
      write(toJson({ t: 'event', ...h.envelope }))
    }
    if (!held.length && ws.bufferedAmount <= budget.bytes) stop()
  }

  return {
    reply(value: unknown) {
      if (!open()) return
      const text = toJson(value)
      const queued = ws.bufferedAmount
      const size = Buffer.byteLength(text)
      if (queued > budget.bytes && queued + size > budget.bytes + Math.max(largest, size))
        return drop('it stopped reading (outbound queue over budget)')
      write(text)
    },
    event(envelope: EventEnvelope) {
      if (!open()) return
      if (!held.length && ws.bufferedAmount <= budget.bytes) return write(toJson({ t: 'event', ...envelope }))
      const changed = asChanged(envelope)
      const same = changed && held.find((h) => asChanged(h.envelope)?.profile === changed.profile)
      if (same) {
        const was = asChanged(same.envelope)!
        const parentIds = union(was.parentIds, changed.parentIds)
        same.envelope = {
          event: 'sessions.changed',
          payload: {
            profile: was.profile,
            sessionIds: union(was.sessionIds, changed.sessionIds),
            ...(parentIds.length ? { parentIds } : {})
          }
        }
        heldBytes -= same.bytes
        same.bytes = Buffer.byteLength(JSON.stringify(same.envelope))
        heldBytes += same.bytes
      } else {
        const bytes = Buffer.byteLength(JSON.stringify(envelope))
        held.push({ envelope, bytes })
        heldBytes += bytes
      }
      if (heldBytes > budget.bytes) {
        stop()
        return drop('it stopped reading (events held over budget)')
      }
      watch()
    },
    close: stop
  }
}
