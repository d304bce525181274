import { useEffect, useState } from 'react'
import { readRecallSummary, type MemoryEvent, type Message } from '@shared/contract'
import { getApi } from '../../api'
import { useMemory } from '../../stores/memory'
import { useTranscript } from '../../stores/transcript'

/** One fetch per session, shared by every user message of its transcript; re-read when memory activity arrives. */
const cache = new Map<string, { newest: number; upTo: number; events: Promise<MemoryEvent[]> }>()

/**
 * A message newer than the last fetch (a turn that just ran) or new activity means the cached list is stale.
 * `loadedUpTo` is the transcript's newest loaded id, the same for every row of a render: one fetch per change,
 * not one per row (each row's own id, rendered in ascending order, used to refetch for every row).
 */
function sessionEvents(profile: string, sessionId: string, newest: number, loadedUpTo: number): Promise<MemoryEvent[]> {
  const key = `${profile}/${sessionId}`
  const hit = cache.get(key)
  if (hit && hit.newest === newest && hit.upTo >= loadedUpTo) return hit.events
  const events = getApi()
    .call('memory.events', { profile, sessionId, limit: 1000 })
    .then(
      (p) => p.items,
      () => []
    )
  cache.set(key, { newest, upTo: Math.max(loadedUpTo, hit?.upTo ?? 0), events })
  return events
}

/**
 * What memory recalled and wrote in the turn a user message opened (folded). The turn is found by its
 * recall: prefetch runs at the start of the turn and carries the turn id every later tool call and write of
 * that turn carries too.
 */
function eventsOfTurn(all: MemoryEvent[], m: Message): MemoryEvent[] {
  // The user message is saved before the turn starts (durable resume), so its prefetch usually comes just after it;
  // take the prefetch nearest in time within a minute either side.
  const recall = all
    .filter((e) => e.kind === 'prefetch' && e.turnId && Math.abs(e.at - m.timestamp) <= 60)
    .sort((a, b) => Math.abs(a.at - m.timestamp) - Math.abs(b.at - m.timestamp))[0]
  if (!recall) return []
  // Every recall of the turn (one per provider, ok or failed: a failure is what the user needs to see), its
  // memory tool calls and writes, and its syncs.
  return all.filter(
    (e) =>
      e.turnId === recall.turnId &&
      (e.kind === 'prefetch' ? !e.summary.startsWith('skipped:') : ['tool_call', 'write', 'sync'].includes(e.kind))
  )
}

/** One recall line: provider, ok or failed (with why), the question, size and duration — the Memory page's numbers. */
function recallText(e: MemoryEvent): string {
  const { query, outcome } = readRecallSummary(e.summary)
  const q = query != null ? ` “${query.slice(0, 60)}”` : ''
  const how = e.latencyMs != null ? ` in ${Math.round(e.latencyMs)}ms` : ''
  return e.ok ? `ok${q}: ${e.size ?? 0} chars${how}` : `failed${q}${how}: ${outcome.replace(/^failed: /, '')}`
}

export function TurnMemoryFold({ m, profile }: { m: Message; profile: string | null | undefined }) {
  const newest = useMemory((s) => s.order[0] ?? 0)
  const loadedUpTo = useTranscript((s) => Math.max(m.id, s.ids[s.ids.length - 1] ?? 0))
  const [events, setEvents] = useState<MemoryEvent[]>([])
  const [open, setOpen] = useState(false)
  useEffect(() => {
    if (!profile || m.role !== 'user') return
    let live = true
    void sessionEvents(profile, m.sessionId, newest, loadedUpTo).then((all) => {
      if (live) setEvents(eventsOfTurn(all, m))
    })
    return () => {
      live = false
    }
  }, [profile, m, newest, loadedUpTo])
  if (!profile || m.role !== 'user' || events.length === 0) return null
  const recalls = events.filter((e) => e.kind === 'prefetch')
  const recalled = recalls.filter((e) => e.ok && (e.size ?? 0) > 0)
  const failed = recalls.filter((e) => !e.ok)
  // The Memory page's "Writes": what changed memory (a built-in write, a provider tool call that wrote), never a read.
  const written = events.filter((e) => e.kind === 'write' && e.ok)
  const synced = events.filter((e) => e.kind === 'sync')
  // Failures first, as on the Memory page.
  const shown = [...failed, ...events.filter((e) => !failed.includes(e))]
  return (
    <div className={`fold memory-fold${open ? ' open' : ''}`} data-testid="turn-memory">
      <button
        className="fold-head small muted"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="turn-memory-toggle"
      >
        🧠 memory: {recalled.length} recalled, {written.length} written, {synced.length} synced
        {failed.length > 0 && <span className="err-text">, {failed.length} recall failed</span>}
      </button>
      {open && (
        <ul className="fold-body small">
          {shown.map((e) => (
            <li
              key={`${e.profile}-${e.id}`}
              data-testid="turn-memory-event"
              data-kind={e.kind}
              data-ok={String(e.ok)}
              className={e.ok ? undefined : 'err-text'}
            >
              <span className="mono">
                {e.provider}.{e.name}
              </span>{' '}
              {e.kind === 'prefetch' ? recallText(e) : e.summary}{' '}
              <a href="#/memory" className="muted" data-testid="turn-memory-feed">
                feed
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
