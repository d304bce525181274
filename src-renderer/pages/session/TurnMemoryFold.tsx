import { useMemo, useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { MemoryEvent, Message } from '@shared/contract'
import { getApi } from '../../api'
import { useMemory } from '../../stores/memory'
import { requestKey } from '../../stores/server'
import { useTranscript } from '../../stores/transcript'
import { useMessageWindow } from '../../stores/transcript-window'
import { eventsOfTurn, foldCounts, recallText } from '../../lib/turn-memory'

/**
 * One fetch per session, shared by every user message of its transcript (one query, not one per row). The key
 * adds a freshness mark to the request + input: the newest memory activity seen and the transcript's newest
 * loaded id (a turn that just ran), the same for every row of a render, so each change reads the list once.
 */
function sessionEventsQuery(profile: string, sessionId: string, newest: number, loadedUpTo: number) {
  const input = { profile, sessionId, limit: 1000 }
  return {
    queryKey: [...requestKey('memory.events', input), { newest, loadedUpTo }] as const,
    queryFn: (): Promise<MemoryEvent[]> =>
      getApi()
        .call('memory.events', input)
        .then(
          (p) => p.items,
          () => []
        ),
    staleTime: Infinity
  }
}

export function TurnMemoryFold({ m, profile }: { m: Message; profile: string | null | undefined }) {
  const newest = useMemory((s) => s.order[0] ?? 0)
  const openId = useTranscript((s) => s.sessionId)
  const loadedUpTo = Math.max(m.id, useMessageWindow(profile ?? null, openId, (w) => w.ids[w.ids.length - 1] ?? 0) ?? 0)
  const [open, setOpen] = useState(false)
  const wanted = !!profile && m.role === 'user'
  const { data: all } = useQuery({
    ...sessionEventsQuery(profile ?? '', m.sessionId, newest, loadedUpTo),
    enabled: wanted,
    placeholderData: keepPreviousData
  })
  const events = useMemo(() => (wanted && all ? eventsOfTurn(all, m) : []), [wanted, all, m])
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
