/** Everything `delegate_task` needs from the host, injected so tests can use real parts in isolation. */
import type { LogFn } from '@shared/contract/log'
import type { ChildFactory } from './children'
import type { DelegationConfig } from './config'
import type { LiveSubagentRegistry } from './live-registry'
import type { DelegationRegistry } from './registry'
import type { ChildResult, CompletionEvent, DelegationStore } from './types'

/** A background delegation finished and its notice was appended to the origin session. */
export interface DelegationCompletion {
  profile: string
  delegationId: string
  parentSessionId: string | null
  /** Session the notice landed in (the parent's compression tip); null if delivery failed. */
  deliveredSessionId: string | null
  messageId: number | null
  /** The text appended as a `user` message; the host runs the parent's next turn with it. */
  notice: string
  event: CompletionEvent
  results: ChildResult[]
}

export interface DelegateDeps {
  profile: string
  store: DelegationStore
  registry: DelegationRegistry
  buildChild: ChildFactory
  live: LiveSubagentRegistry
  /** Gateway session-context gate (§4.5); false ⇒ background requests run inline. */
  asyncDeliverySupported(): boolean
  config(): DelegationConfig
  /** Shared across every parent in this process: the async concurrency cap counts units, not children. */
  pool: BackgroundPool
  /**
   * Saves a completion notice once no turn runs on the parent's conversation and runs it as the next turn, with no
   * turn in between: the host holds the conversation while `save` appends to its live tip (`tip`), so the notice never
   * lands among a turn's rows. Rejects when nothing was saved. Absent: the notice is saved at once and no turn runs.
   */
  saveAndRun?(
    delegationId: string,
    sessionId: string,
    save: (tip: string) => Promise<{ messageId: number; text: string } | null>
  ): Promise<void>
  /** Called once the notice is in the parent session (tests; the host's turn is run by `saveAndRun`). */
  onCompletion?(c: DelegationCompletion): void | Promise<void>
  /** Fires on dispatch, completion and delivery (host emits `delegation.updated`). */
  onUpdate?(u: { profile: string; delegationId: string; parentSessionId: string | null }): void
  log?: LogFn
}

/** Counts running background units; check-and-reserve is one synchronous step, so it is atomic. */
export class BackgroundPool {
  private running = new Map<string, Promise<unknown>>()
  private stopped = false

  get size(): number {
    return this.running.size
  }

  /** True once `settle` ran: the host is closing and no unit starts. */
  get isStopped(): boolean {
    return this.stopped
  }

  tryReserve(id: string, cap: number): boolean {
    if (this.stopped || this.running.size >= cap) return false
    this.running.set(id, Promise.resolve())
    return true
  }

  track(id: string, p: Promise<unknown>): void {
    this.running.set(id, p)
    const done = () => {
      if (this.running.get(id) === p) this.running.delete(id)
    }
    p.then(done, done)
  }

  release(id: string): void {
    this.running.delete(id)
  }

  /**
   * Host close: no unit starts after it, and the units running now are awaited (their children interrupted first by
   * the caller) for at most `boundMs`, so none of them writes into a store after the host closed it. Returns how many
   * were still running when the bound passed.
   */
  async settle(boundMs: number): Promise<number> {
    this.stopped = true
    const units = [...this.running.values()]
    if (units.length === 0) return 0
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)))
    try {
      await Promise.race([Promise.allSettled(units), bound])
    } finally {
      clearTimeout(timer)
    }
    const still = new Set(this.running.values())
    return units.filter((u) => still.has(u)).length
  }

  /** Resolves when every unit has settled, those started meanwhile too (tests wait on it; the host uses settle). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()])
  }
}
