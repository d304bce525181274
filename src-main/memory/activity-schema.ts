/** `cad_memory_events`: Caduceus-only table in each profile's state.db. Reconciled additively, never dropped. */
import type Database from 'better-sqlite3'
import { MemoryEventKind, type MemoryEvent } from '@shared/contract/memory'

const COLUMNS: Array<[string, string]> = [
  ['provider', "TEXT NOT NULL DEFAULT ''"],
  ['kind', "TEXT NOT NULL DEFAULT 'hook'"],
  ['name', "TEXT NOT NULL DEFAULT ''"],
  ['session_id', 'TEXT'],
  ['turn_id', 'TEXT'],
  ['ok', 'INTEGER NOT NULL DEFAULT 1'],
  ['latency_ms', 'REAL'],
  ['summary', "TEXT NOT NULL DEFAULT ''"],
  ['size', 'INTEGER'],
  ['at', 'REAL NOT NULL DEFAULT 0']
]

export function ensureActivityTable(db: Database.Database): true {
  db.exec(`CREATE TABLE IF NOT EXISTS cad_memory_events (id INTEGER PRIMARY KEY AUTOINCREMENT, ${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})`)
  const have = new Set((db.prepare('PRAGMA table_info(cad_memory_events)').all() as Array<{ name: string }>).map((c) => c.name))
  for (const [name, type] of COLUMNS) if (!have.has(name)) db.exec(`ALTER TABLE cad_memory_events ADD COLUMN ${name} ${type}`)
  db.exec('CREATE INDEX IF NOT EXISTS idx_cad_memory_events_provider ON cad_memory_events(provider, id)')
  db.exec('CREATE INDEX IF NOT EXISTS idx_cad_memory_events_session ON cad_memory_events(session_id, id)')
  return true
}

export interface EventRow {
  id: number; provider: unknown; kind: unknown; name: unknown; session_id: unknown; turn_id: unknown
  ok: unknown; latency_ms: unknown; summary: unknown; size: unknown; at: unknown
}

const str = (v: unknown) => (typeof v === 'string' ? v : v == null ? '' : String(v))
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** Rows written by another version may hold odd values: coerce instead of crashing the feed. */
export function rowToEvent(r: EventRow, profile: string): MemoryEvent {
  const kind = MemoryEventKind.safeParse(r.kind)
  const size = num(r.size)
  return {
    id: Number(r.id), profile, provider: str(r.provider), kind: kind.success ? kind.data : 'hook', name: str(r.name),
    sessionId: r.session_id == null ? null : str(r.session_id), turnId: r.turn_id == null ? null : str(r.turn_id),
    ok: r.ok !== 0 && r.ok !== '0', latencyMs: num(r.latency_ms), summary: str(r.summary),
    size: size === null ? null : Math.round(size), at: num(r.at) ?? 0
  }
}
