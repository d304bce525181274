/**
 * In-process registry of running subagents, keyed by subagent id (hermes-spec §2.7 `_active_subagents`).
 * Lets a follow-up steer a child mid-run and lets the UI list and interrupt children. Also holds the
 * spawn-pause kill switch, which blocks new spawns but never follow-ups.
 */
export interface SteerableAgent {
  sessionId?: string | null
  /** Queue a message for the next iteration boundary; false when the agent cannot take it. */
  steer?(text: string): boolean
  interrupt?(reason?: string): void
}

export interface LiveSubagent {
  subagentId: string
  agent: SteerableAgent
  acceptingSteer?: boolean
  ownerSessionId?: string | null
  /** The profile that spawned it: one registry serves every profile of the host, and a child answers only its own. */
  profile: string
  delegationId?: string | null
  parentSessionId?: string | null
  goal?: string
  model?: string | null
  startedAt?: number
}

export type LiveSubagentInfo = Omit<LiveSubagent, 'agent' | 'ownerSessionId'> & { childSessionId: string | null }

export class LiveSubagentRegistry {
  private readonly active = new Map<string, LiveSubagent>()
  private paused = false

  register(rec: LiveSubagent): void {
    if (!rec || typeof rec.subagentId !== 'string' || !rec.subagentId) return
    this.active.set(rec.subagentId, { acceptingSteer: true, startedAt: Date.now() / 1000, ...rec })
  }

  /** Identity-checked: a stale finisher must not remove a newer registration under the same id. */
  unregister(subagentId: string, agent?: SteerableAgent): boolean {
    const rec = this.active.get(subagentId)
    if (!rec || (agent !== undefined && rec.agent !== agent)) return false
    return this.active.delete(subagentId)
  }

  get(subagentId: string): LiveSubagent | undefined {
    return this.active.get(subagentId)
  }

  /**
   * Resolve by registry key or by the live agent's session id, among the children of `profile` only: another
   * profile's child is not found, the same answer as an unknown id, so a caller learns nothing about it.
   */
  resolve(id: string, profile: string): LiveSubagent | undefined {
    const key = id.trim()
    if (!key) return undefined
    const direct = this.active.get(key)
    if (direct) return direct.profile === profile ? direct : undefined
    for (const rec of this.active.values())
      if (rec.profile === profile && rec.agent?.sessionId && rec.agent.sessionId === key) return rec
    return undefined
  }

  steer(subagentId: string, text: string, ownerSessionId?: string | null): boolean {
    if (typeof text !== 'string' || !text.trim()) return false
    const rec = this.active.get(subagentId)
    if (!rec || !rec.agent || rec.acceptingSteer === false || typeof rec.agent.steer !== 'function') return false
    if (ownerSessionId && rec.ownerSessionId && ownerSessionId !== rec.ownerSessionId) return false
    try {
      return rec.agent.steer(text) === true
    } catch {
      return false // a child that throws on steer did not take it
    }
  }

  interrupt(subagentId: string, reason = 'interrupted'): boolean {
    const rec = this.active.get(subagentId)
    if (!rec || typeof rec.agent?.interrupt !== 'function') return false
    try {
      rec.agent.interrupt(reason)
      return true
    } catch {
      return false // a child that throws on interrupt was not interrupted
    }
  }

  /** Snapshot without the agent object or owner fields. */
  list(): LiveSubagentInfo[] {
    return [...this.active.values()].map(({ agent, ownerSessionId: _owner, ...rest }) => ({
      ...rest,
      childSessionId: agent?.sessionId ?? null
    }))
  }

  setSpawnPaused(paused: boolean): void {
    this.paused = !!paused
  }

  isSpawnPaused(): boolean {
    return this.paused
  }
}
