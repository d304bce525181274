import type { MemoryEventKind } from '@shared/contract/memory'

/** What the manager reports for one memory event; the activity log adds id, profile and time. */
export interface MemoryActivityInput {
  provider: string
  kind: MemoryEventKind
  /** Hook or tool name (`prefetch`, `sync_turn`, `memory`, …). */
  name: string
  sessionId?: string | null
  turnId?: string | null
  ok: boolean
  latencyMs?: number | null
  /** Short human summary; redacted again by the log before it is stored. */
  summary: string
  /** Characters injected or written. */
  size?: number | null
}

/** Where a manager reports its events. Must not throw (the manager guards anyway). */
export interface MemoryActivitySink {
  record(input: MemoryActivityInput): void
}
