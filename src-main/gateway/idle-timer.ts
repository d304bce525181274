/**
 * Drives the idle sweep without polling: one unref'd timer set for the earliest moment any cached agent
 * could expire. Nothing cached (or everything running) → no timer at all, so an idle host does no work.
 */
import type { AgentCache } from './agent-cache'
import { AGENT_PENDING, type CacheableAgent } from './cacheable'

export class IdleSweepTimer {
  private timer: NodeJS.Timeout | null = null
  private dueAt = Infinity

  constructor(
    private readonly cache: AgentCache<CacheableAgent>,
    private readonly clock: () => number,
    private readonly onSweep?: (evicted: number) => void
  ) {}

  /** Re-plan after anything that changes activity times or membership. */
  schedule(): void {
    const ttlMs = this.cache.idleTtlSeconds * 1000
    let earliest = Infinity
    for (const [, e] of this.cache.entries()) {
      if (e.agent === AGENT_PENDING || this.cache.isRunning(e.agent)) continue
      const ts = e.agent.lastActivityTs
      if (typeof ts === 'number') earliest = Math.min(earliest, ts + ttlMs + 1)
    }
    if (earliest === this.dueAt && this.timer) return
    this.stop()
    if (earliest === Infinity) return
    this.dueAt = earliest
    // setTimeout caps at ~24.8 days; a longer TTL simply re-plans when it fires.
    const delay = Math.min(Math.max(0, earliest - this.clock()), 2 ** 31 - 1)
    this.timer = setTimeout(() => {
      this.timer = null
      this.dueAt = Infinity
      const n = this.cache.sweepIdle()
      this.onSweep?.(n)
      this.schedule()
    }, delay)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.dueAt = Infinity
  }

  get armed(): boolean {
    return this.timer !== null
  }
}
