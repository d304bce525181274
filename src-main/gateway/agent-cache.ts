/**
 * The gateway agent cache (hermes-spec §3, seed 001): session key → warm agent, so a conversation keeps
 * its provider client and prompt-cache prefix across turns. Node is single-threaded, so every map
 * operation here is synchronous (the "lock" is the call itself); releases are only ever SCHEDULED from
 * inside it and run later, so the map stays usable while a slow release is in flight (invariant 3).
 */
import { runInProfileScope } from '../scope'
import {
  AGENT_PENDING,
  DEFAULT_CACHE_CAP,
  DEFAULT_IDLE_TTL_SECONDS,
  initCachedAgentForTurn,
  nowMs,
  type CacheableAgent,
  type Pending
} from './cacheable'
import { silentLogger, type Logger } from '@shared/contract/log'
import { commitThenReleaseSoft, releaseHard, releaseSoft } from './release'
import type { CacheDecision } from '@shared/contract'
import { errorMessage } from '@shared/contract/errors'

const LOG = 'gateway.run'

export interface ProfileOwner {
  home: string
  secrets: Readonly<Record<string, string>>
}

/** Reads the live transcript state the cross-process guard compares against. Failures → null / false. */
export interface SessionProbe {
  messageCount(key: string, sessionId: string): number | null
  /**
   * The session's `rewind_count` (null: unknown, or a home without the column). Another program's rewind sets rows
   * inactive and bumps only this, leaving message_count as it was.
   */
  rewindCount?(key: string, sessionId: string): number | null
  isSessionEnded(key: string, sessionId: string): boolean
}

export interface CacheEntry<A extends CacheableAgent = CacheableAgent> {
  agent: A | Pending
  signature: string
  /**
   * What the cross-process guard compares against; a null count is never invalidated by count (seed 001), a
   * null/absent `rewinds` never by rewinds.
   */
  snapshot: { messageCount: number | null; sessionId: string | null; rewinds?: number | null }
  profile: string | null
  model: string | null
  turns: number
  owner: ProfileOwner | null
  /** The `memory.*` signature inputs the agent was built with: what explains a later rebuild. */
  memoryInputs: Record<string, unknown> | null
}

export interface InsertOptions {
  messageCount?: number | null
  rewindCount?: number | null
  sessionId?: string | null
  profile?: string | null
  model?: string | null
  owner?: ProfileOwner | null
  memoryInputs?: Record<string, unknown> | null
}

export interface LookupResult<A> {
  decision: CacheDecision
  agent: A | null
}

export interface AgentCacheOptions {
  /** Most agents kept; `Infinity` = unbounded (nothing is ever evicted for size). */
  cap?: number
  idleTtlSeconds?: number
  log?: Logger
  /** Epoch milliseconds. */
  clock?: () => number
  probe?: SessionProbe | null
  /** Fallback owner of a key when the entry did not record one (release-in-owner-scope). */
  ownerForKey?: (key: string) => ProfileOwner | null
  onChange?: (reason: string) => void
}

type ReleaseMode = 'soft' | 'commit_soft' | 'hard'

export class AgentCache<A extends CacheableAgent = CacheableAgent> {
  readonly cap: number
  readonly idleTtlSeconds: number
  probe: SessionProbe | null
  private readonly map = new Map<string, CacheEntry<A>>()
  private readonly running = new Map<string, A | Pending>()
  private readonly pending = new Set<Promise<void>>()
  private readonly log: Logger
  private readonly clock: () => number

  constructor(private readonly opts: AgentCacheOptions = {}) {
    this.cap = opts.cap ?? DEFAULT_CACHE_CAP
    this.idleTtlSeconds = opts.idleTtlSeconds ?? DEFAULT_IDLE_TTL_SECONDS
    this.log = opts.log ?? silentLogger
    this.clock = opts.clock ?? nowMs
    this.probe = opts.probe ?? null
  }

  get size(): number {
    return this.map.size
  }
  keys(): string[] {
    return [...this.map.keys()]
  }
  get(key: string): CacheEntry<A> | undefined {
    return this.map.get(key)
  }
  has(key: string): boolean {
    return this.map.has(key)
  }
  entries(): Array<[string, CacheEntry<A>]> {
    return [...this.map.entries()]
  }
  /** Releases scheduled but not yet finished. */
  get pendingReleases(): number {
    return this.pending.size
  }

  /** Move to the most-recently-used end. */
  touch(key: string): void {
    const e = this.map.get(key)
    if (!e) return
    this.map.delete(key)
    this.map.set(key, e)
  }

  // ── running set (identity-based) ───────────────────────────────────────────
  markRunning(key: string, agent: A | Pending): void {
    this.running.set(key, agent)
  }
  markIdle(key: string): void {
    this.running.delete(key)
  }
  runningKeys(): string[] {
    return [...this.running.keys()]
  }
  /** Agents mid-turn, by identity; the build placeholder is never a live agent. */
  runningAgents(): Set<A> {
    const out = new Set<A>()
    for (const a of this.running.values()) if (a !== AGENT_PENDING && a) out.add(a as A)
    return out
  }
  isRunning(agent: unknown): boolean {
    for (const a of this.running.values()) if (a === agent && a !== AGENT_PENDING) return true
    return false
  }

  // ── insert / lookup ────────────────────────────────────────────────────────
  insert(key: string, agent: A | Pending, signature: string, o: InsertOptions = {}): void {
    const prev = this.map.get(key)
    this.map.delete(key)
    this.map.set(key, {
      agent,
      signature,
      snapshot: {
        messageCount: o.messageCount ?? null,
        sessionId: o.sessionId ?? null,
        rewinds: o.rewindCount ?? null
      },
      profile: o.profile ?? prev?.profile ?? null,
      model: o.model ?? null,
      turns: 0,
      owner: o.owner ?? prev?.owner ?? null,
      memoryInputs: o.memoryInputs ?? null
    })
    // A rebuilt key displaces the old agent: free its clients (unless it is somehow still running).
    if (prev && prev.agent !== agent) this.releaseDetached(key, prev, 'soft')
    this.enforceCap()
    this.opts.onChange?.('insert')
  }

  /**
   * Turn-time lookup with the cross-process guard (hermes-spec §3.4). Reads the DB through the probe
   * first, then decides and mutates synchronously; a popped agent is released after we return.
   */
  lookup(
    key: string,
    req: { signature: string; sessionId: string | null; interruptDepth?: number; maxIterations?: number }
  ): LookupResult<A> {
    const entry = this.map.get(key)
    if (!entry || entry.agent === AGENT_PENDING) return { decision: 'new', agent: null }
    if (entry.signature !== req.signature) return { decision: 'config_changed', agent: null }
    const snapSid = entry.snapshot.sessionId
    const mismatch = Boolean(snapSid && req.sessionId && snapSid !== req.sessionId)
    const oldDead = mismatch && snapSid ? this.probeEnded(key, snapSid) : false
    const live = req.sessionId ? this.probeCount(key, req.sessionId) : null
    if (mismatch && oldDead) {
      // Stale self-heal artifact: the snapshot belongs to a session that has since ended.
      this.pop(key, entry, 'soft', 'session_changed')
      return { decision: 'session_changed', agent: null }
    }
    const snapCount = entry.snapshot.messageCount
    if (!mismatch && snapCount !== null && live !== null && snapCount !== live) {
      this.log.info(
        LOG,
        `Agent cache invalidated for session ${req.sessionId}: message_count changed (${snapCount} -> ${live}), possible cross-process write`
      )
      this.pop(key, entry, 'soft', 'external_write')
      return { decision: 'external_write', agent: null }
    }
    // A rewind elsewhere keeps message_count: the agent would still hold (and send) the rewound turns.
    const snapRewinds = entry.snapshot.rewinds ?? null
    const liveRewinds =
      !mismatch && snapRewinds !== null && req.sessionId ? this.probeRewinds(key, req.sessionId) : null
    if (liveRewinds !== null && liveRewinds !== snapRewinds) {
      this.log.info(
        LOG,
        `Agent cache invalidated for session ${req.sessionId}: rewind_count changed (${snapRewinds} -> ${liveRewinds}), possible cross-process rewind`
      )
      this.pop(key, entry, 'soft', 'external_write')
      return { decision: 'external_write', agent: null }
    }
    const agent = entry.agent as A
    this.touch(key)
    initCachedAgentForTurn(agent, req.interruptDepth ?? 0, this.clock())
    if (req.maxIterations !== undefined) agent.maxIterations = req.maxIterations
    entry.turns++
    return { decision: 'reused', agent }
  }

  /**
   * Move an entry to another key, keeping its agent, counts and LRU place at the newest end. Refused (false) when
   * `to` already holds an entry or a turn: the entry then stays where it is.
   */
  rekey(from: string, to: string): boolean {
    const e = this.map.get(from)
    if (!e || from === to || this.map.has(to) || this.running.has(to)) return false
    this.map.delete(from)
    this.map.set(to, e)
    this.opts.onChange?.('rekey')
    return true
  }

  /** Count a turn for a freshly inserted agent (lookup counts reused ones). */
  noteTurn(key: string): void {
    const e = this.map.get(key)
    if (e) e.turns++
  }

  /**
   * Re-baseline after this process's own turn (hermes-spec §3.5): our own writes must never look like a
   * foreign write on the next lookup. Placeholders and other sessions' snapshots are left alone.
   */
  refreshMessageCount(key: string, sessionId: string | null): void {
    if (!this.probe || !sessionId) return
    const live = this.probeCount(key, sessionId)
    if (live === null) return
    const e = this.map.get(key)
    if (!e || e.agent === AGENT_PENDING) return
    if (e.snapshot.sessionId && e.snapshot.sessionId !== sessionId) return
    // This process never rewinds: a known rewind count is left as it is (a change is always someone else's); an
    // unknown one (a snapshot that followed a compression to its child) is learned here.
    const rewinds = e.snapshot.rewinds ?? this.probeRewinds(key, sessionId)
    if (e.snapshot.messageCount === live && (e.snapshot.rewinds ?? null) === rewinds) return
    e.snapshot = { ...e.snapshot, messageCount: live, rewinds }
  }

  /**
   * This process appended `appended` messages to `sessionId` outside a turn (a delivered completion or
   * process notice): move the snapshot past them so the next lookup reuses the agent. Only when the
   * counts line up exactly — anything else is someone else's write and must still invalidate.
   */
  rebaselineOwnAppend(key: string, sessionId: string, appended: number): boolean {
    const e = this.map.get(key)
    if (!e || e.agent === AGENT_PENDING || this.isRunning(e.agent)) return false
    if (e.snapshot.sessionId && e.snapshot.sessionId !== sessionId) return false
    const snap = e.snapshot.messageCount
    const live = this.probeCount(key, sessionId)
    if (snap === null || live === null || live - snap !== appended) return false
    e.snapshot = { ...e.snapshot, messageCount: live }
    return true
  }

  // ── eviction policies ──────────────────────────────────────────────────────
  /**
   * LRU cap (hermes-spec §3.7). Only the first `size − cap` entries are candidates; a mid-turn candidate
   * is skipped and NOTHING newer is evicted instead — the cache stays over cap until the next insert.
   */
  enforceCap(): number {
    const excess = this.map.size - this.cap
    if (excess <= 0) return 0
    const busy = this.runningAgents()
    let evicted = 0
    for (const key of this.keys().slice(0, excess)) {
      const e = this.map.get(key)!
      if (e.agent !== AGENT_PENDING && busy.has(e.agent as A)) continue
      this.pop(key, e, 'commit_soft', 'lru')
      evicted++
    }
    if (this.map.size > this.cap) {
      this.log.warn(
        LOG,
        `Agent cache over cap (${this.map.size} > ${this.cap}); ${this.map.size - this.cap} excess slot(s) held by mid-turn agents — will re-check on next insert.`
      )
    }
    return evicted
  }

  /** Idle sweep (hermes-spec §3.8): returns how many agents were evicted. */
  sweepIdle(now: number = this.clock()): number {
    const busy = this.runningAgents()
    let evicted = 0
    for (const [key, e] of this.entries()) {
      if (e.agent === AGENT_PENDING || !e.agent) continue
      const agent = e.agent as A
      if (busy.has(agent)) continue
      const ts = agent.lastActivityTs
      if (typeof ts !== 'number') continue
      if (now - ts > this.idleTtlSeconds * 1000) {
        this.pop(key, e, 'commit_soft', 'idle')
        evicted++
      }
    }
    return evicted
  }

  /** Explicit eviction (/new, model switch, UI): pops the key only; soft release unless mid-turn. */
  evict(key: string): boolean {
    const e = this.map.get(key)
    if (!e) return false
    this.pop(key, e, 'soft', 'evict')
    return true
  }

  /** Session boundary / expiry: full teardown (hard close). A running agent is never torn down. */
  expire(key: string): boolean {
    const e = this.map.get(key)
    if (!e || (e.agent !== AGENT_PENDING && this.isRunning(e.agent))) return false
    this.pop(key, e, 'hard', 'expire')
    return true
  }

  /** Soft-release an agent that is no longer (or never was) in the map, e.g. after its turn ended. */
  releaseDetached(key: string, e: Pick<CacheEntry<A>, 'agent' | 'owner'>, mode: ReleaseMode = 'soft'): void {
    if (e.agent === AGENT_PENDING || !e.agent || this.isRunning(e.agent)) return
    this.schedule(key, e.agent as A, e.owner, mode)
  }

  /** Wait for every scheduled release (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending])
  }

  private pop(key: string, e: CacheEntry<A>, mode: ReleaseMode, reason: string): void {
    this.map.delete(key)
    this.releaseDetached(key, e, mode)
    this.opts.onChange?.(reason)
  }

  /**
   * Run a release on a later tick, in the profile scope that owns the key: the tick inherits the
   * scheduler's async context, which may be another profile's turn (multiplexed host).
   */
  private schedule(key: string, agent: A, owner: ProfileOwner | null, mode: ReleaseMode): void {
    const who = owner ?? this.opts.ownerForKey?.(key) ?? null
    const work = () =>
      mode === 'hard'
        ? releaseHard(agent)
        : mode === 'commit_soft'
          ? commitThenReleaseSoft(agent, key, this.log)
          : releaseSoft(agent)
    const p = new Promise<void>((resolve) => {
      setImmediate(() => {
        const run = () => Promise.resolve().then(work)
        ;(who ? runInProfileScope(who.home, who.secrets, run) : run())
          .catch((err: unknown) => this.log.warn(LOG, `release of ${key.slice(0, 48)} failed: ${errorMessage(err)}`))
          .finally(resolve)
      })
    })
    this.pending.add(p)
    void p.finally(() => this.pending.delete(p))
  }

  private probeCount(key: string, sid: string): number | null {
    try {
      const n = this.probe?.messageCount(key, sid)
      return typeof n === 'number' ? n : null
    } catch {
      return null // unreadable: unknown, and an unknown count reuses the agent (never a crash)
    }
  }

  private probeRewinds(key: string, sid: string): number | null {
    try {
      const n = this.probe?.rewindCount?.(key, sid)
      return typeof n === 'number' && Number.isFinite(n) ? n : null
    } catch {
      return null // unreadable: unknown, as probeCount
    }
  }

  private probeEnded(key: string, sid: string): boolean {
    try {
      return this.probe?.isSessionEnded(key, sid) === true
    } catch {
      return false // unreadable: not known to be ended, as probeCount
    }
  }
}
