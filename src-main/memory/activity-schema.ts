/** `cad_memory_events` records (table and SQL: store/memory-events-repo.ts) as contract `MemoryEvent`s. */
import { MemoryEventKind, type MemoryEvent } from '@shared/contract/memory'
import type { SessionStore } from '../store'

/** A stored event as the store's repository returns it: camelCase, field types from the table definition. */
type EventRecord = ReturnType<ReturnType<SessionStore['memoryEventsRepo']>['list']>[number]

const str = (v: unknown) => (typeof v === 'string' ? v : v == null ? '' : String(v))
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** Rows written by another version may hold odd values: coerce instead of crashing the feed. */
export function rowToEvent(r: EventRecord, profile: string): MemoryEvent {
  const ok: unknown = r.ok
  const kind = MemoryEventKind.safeParse(r.kind)
  const size = num(r.size)
  return {
    id: Number(r.id),
    profile,
    provider: str(r.provider),
    kind: kind.success ? kind.data : 'hook',
    name: str(r.name),
    sessionId: r.sessionId == null ? null : str(r.sessionId),
    turnId: r.turnId == null ? null : str(r.turnId),
    ok: ok !== 0 && ok !== '0',
    latencyMs: num(r.latencyMs),
    summary: str(r.summary),
    size: size === null ? null : Math.round(size),
    at: num(r.at) ?? 0
  }
}
