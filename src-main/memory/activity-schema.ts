/** `cad_memory_events` rows (table and SQL: store/memory-events-repo.ts) as contract `MemoryEvent`s. */
import { MemoryEventKind, type MemoryEvent } from '@shared/contract/memory'

export interface EventRow {
  id: number
  provider: unknown
  kind: unknown
  name: unknown
  session_id: unknown
  turn_id: unknown
  ok: unknown
  latency_ms: unknown
  summary: unknown
  size: unknown
  at: unknown
}

const str = (v: unknown) => (typeof v === 'string' ? v : v == null ? '' : String(v))
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** Rows written by another version may hold odd values: coerce instead of crashing the feed. */
export function rowToEvent(r: EventRow, profile: string): MemoryEvent {
  const kind = MemoryEventKind.safeParse(r.kind)
  const size = num(r.size)
  return {
    id: Number(r.id),
    profile,
    provider: str(r.provider),
    kind: kind.success ? kind.data : 'hook',
    name: str(r.name),
    sessionId: r.session_id == null ? null : str(r.session_id),
    turnId: r.turn_id == null ? null : str(r.turn_id),
    ok: r.ok !== 0 && r.ok !== '0',
    latencyMs: num(r.latency_ms),
    summary: str(r.summary),
    size: size === null ? null : Math.round(size),
    at: num(r.at) ?? 0
  }
}
