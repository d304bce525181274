/**
 * The turn's memory fold in numbers: which memory events belong to the turn a user message opened, and the
 * counts the fold shows — counted as the Memory page counts them (recalls ok/failed, writes that changed
 * memory, syncs that landed and failed ones apart), failures first.
 */
import { readRecallSummary, type MemoryEvent, type Message } from '@shared/contract'

/**
 * What memory recalled and wrote in the turn a user message opened (folded). The turn is found by its
 * recall: prefetch runs at the start of the turn and carries the turn id every later tool call and write of
 * that turn carries too.
 */
export function eventsOfTurn(all: MemoryEvent[], m: Message): MemoryEvent[] {
  // The user message is saved before the turn starts (durable resume), so its prefetch usually comes just after it;
  // take the prefetch nearest in time within a minute either side.
  const recall = all
    .filter((e) => e.kind === 'prefetch' && e.turnId && Math.abs(e.at - m.timestamp) <= 60)
    .sort((a, b) => Math.abs(a.at - m.timestamp) - Math.abs(b.at - m.timestamp))[0]
  if (!recall) return []
  // Every recall of the turn (one per provider, ok or failed: a failure is what the user needs to see), its
  // memory tool calls and writes, its syncs, and whatever failed in it (a failed sync is logged as an error).
  return all.filter(
    (e) =>
      e.turnId === recall.turnId &&
      (e.kind === 'prefetch'
        ? !e.summary.startsWith('skipped:')
        : ['tool_call', 'write', 'sync', 'error'].includes(e.kind))
  )
}

/** One recall line: provider, ok or failed (with why), the question, size and duration — the Memory page's numbers. */
export function recallText(e: MemoryEvent): string {
  const { query, outcome } = readRecallSummary(e.summary)
  const q = query != null ? ` “${query.slice(0, 60)}”` : ''
  const how = e.latencyMs != null ? ` in ${Math.round(e.latencyMs)}ms` : ''
  return e.ok ? `ok${q}: ${e.size ?? 0} chars${how}` : `failed${q}${how}: ${outcome.replace(/^failed: /, '')}`
}

export function foldCounts(events: MemoryEvent[]) {
  const recalls = events.filter((e) => e.kind === 'prefetch')
  const recalled = recalls.filter((e) => e.ok && (e.size ?? 0) > 0)
  const failed = recalls.filter((e) => !e.ok)
  // The Memory page's "Writes": what changed memory (a built-in write, a provider tool call that wrote), never a read.
  const written = events.filter((e) => e.kind === 'write' && e.ok)
  // As the Memory page counts them: syncs that landed, and failed ones apart.
  const synced = events.filter((e) => e.kind === 'sync' && e.ok)
  const syncFailed = events.filter((e) => e.name === 'sync_turn' && (e.kind === 'error' || !e.ok))
  // Failures first, as on the Memory page.
  const shown = [...events.filter((e) => !e.ok), ...events.filter((e) => e.ok)]
  return { recalled, failed, written, synced, syncFailed, shown }
}
