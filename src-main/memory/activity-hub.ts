/**
 * All profiles' activity logs behind one face, for the `memory.events` / `memory.health` requests and the
 * `memory.activity` event. Each profile keeps its own table in its own state.db; 'all' merges them.
 */
import type { SessionStore } from '../store'
import { MemoryEventQuery, type MemoryEvent, type ProviderHealth } from '@shared/contract/memory'
import { MemoryActivityLog, type ActivityLogOptions, type MemoryEventListener } from './activity'

export class MemoryActivityHub {
  private readonly logs = new Map<string, { log: MemoryActivityLog; detach: () => void }>()
  private readonly listeners = new Set<MemoryEventListener>()

  constructor(private readonly options: ActivityLogOptions = {}) {}

  /** The log of `profile` in its store's state.db, writing through the store's write queue (idempotent per profile). */
  register(profile: string, store: SessionStore): MemoryActivityLog {
    const existing = this.logs.get(profile)
    if (existing) return existing.log
    const log = new MemoryActivityLog(store.memoryEventsRepo(), profile, {
      ...this.options,
      writer: (fn) => store.write(fn)
    })
    const detach = log.onEvent((event) => {
      for (const listener of [...this.listeners]) {
        try {
          listener(event)
        } catch {
          // Keep delivering to the rest.
        }
      }
    })
    this.logs.set(profile, { log, detach })
    return log
  }

  unregister(profile: string): void {
    this.logs.get(profile)?.detach()
    this.logs.delete(profile)
  }

  get(profile: string): MemoryActivityLog | undefined {
    return this.logs.get(profile)?.log
  }

  onEvent(listener: MemoryEventListener): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Newest first. Ids are per profile, so with `profile: 'all'` a `beforeId` page applies to each
   * profile's own ids; page a single profile for exact cursors.
   */
  listEvents(query: MemoryEventQuery = {}): MemoryEvent[] {
    const q = MemoryEventQuery.parse(query)
    const logs =
      q.profile === 'all'
        ? [...this.logs.values()].map((l) => l.log)
        : [this.get(q.profile)].filter((l): l is MemoryActivityLog => !!l)
    return logs
      .flatMap((log) => log.listEvents({ ...q, profile: log.profile }))
      .sort((a, b) => b.at - a.at || b.id - a.id)
      .slice(0, q.limit)
  }

  health(profile: string = 'all'): ProviderHealth[] {
    const logs =
      profile === 'all'
        ? [...this.logs.values()].map((l) => l.log)
        : [this.get(profile)].filter((l): l is MemoryActivityLog => !!l)
    return logs.flatMap((log) => log.health())
  }
}
