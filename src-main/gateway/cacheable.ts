/**
 * What the agent cache needs from an agent. The real Agent (src-main/agent) satisfies it structurally;
 * tests use small real objects. Times are epoch MILLISECONDS (the Agent's unit; upstream uses seconds).
 */
export interface CacheableAgent {
  /** Provider client; null after `releaseClients()`. */
  client?: unknown
  lastActivityTs?: number | null
  lastActivityDesc?: string
  lastActivityProvenance?: string
  /** Persistence cursor; reset per fresh turn only when the agent has one. */
  lastFlushedDbIdx?: number
  apiCallCount?: number
  sessionMessages?: unknown[] | null
  maxIterations?: number
  /** The `model_config` a session row it starts records (the Agent's settings in upstream's keys). */
  sessionModelConfig?(): Record<string, unknown>
  /** Soft release: close LLM clients only; terminal/browser/background state survives for a resume. */
  releaseClients?(): unknown
  /** Hard teardown: session expiry / true boundaries only. */
  close?(): unknown
  /**
   * End-of-residency memory commit with the live transcript (before a soft eviction). `any[]`: the
   * transcript's element type is the agent's own (the cache only passes `sessionMessages` back).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  commitMemorySession?(messages: any[] | null): unknown
}

/** Placeholder while an agent is being built: never treated as a live agent, never released. */
export const AGENT_PENDING: unique symbol = Symbol('AGENT_PENDING')
export type Pending = typeof AGENT_PENDING

export const DEFAULT_CACHE_CAP = 128
export const DEFAULT_IDLE_TTL_SECONDS = 3600

export const nowMs = () => Date.now()

/**
 * Prepare a cached agent for a turn (hermes-spec §3.6). A fresh turn (depth 0) restarts the idle clock
 * so a long-idle session does not trip the inactivity watchdog before its first call; an
 * interrupt-recursive turn keeps it, or a stuck interrupt loop would never time out.
 */
export function initCachedAgentForTurn(agent: CacheableAgent, interruptDepth: number, now: number = nowMs()): void {
  if (interruptDepth === 0) {
    agent.lastActivityTs = now
    agent.lastActivityDesc = 'starting new turn (cached)'
    agent.lastActivityProvenance = 'unknown'
    if ('lastFlushedDbIdx' in agent) agent.lastFlushedDbIdx = 0
  }
  agent.apiCallCount = 0
}
