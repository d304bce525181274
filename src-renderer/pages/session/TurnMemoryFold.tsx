import { useEffect, useState } from 'react'
import type { MemoryEvent, Message } from '@shared/contract'
import { getApi } from '../../api'
import { useMemory } from '../../stores/memory'
import { useTranscript } from '../../stores/transcript'
import { eventsOfTurn, foldCounts, recallText } from '../../lib/turn-memory'

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
  const { recalled, failed, written, synced, syncFailed, shown } = foldCounts(events)
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
        {syncFailed.length > 0 && <span className="err-text">, {syncFailed.length} sync failed</span>}
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
