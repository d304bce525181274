import { describe, expect, it } from 'vitest'
import { currentSecretScope, getHermesHome } from '../scope'
import { multiplexed } from '../scope/test-support'
import { AgentCache } from './agent-cache'
import { AGENT_PENDING, initCachedAgentForTurn } from './cacheable'
import { captureLogger } from './test-fixtures/capture-logger'
import { TestAgent } from './test-fixtures/test-agent'

const cacheOf = (o: ConstructorParameters<typeof AgentCache<TestAgent>>[0] = {}) => new AgentCache<TestAgent>(o)

describe('agent cache lifecycle', () => {
  // seed 001: test_cache_hit_returns_same_agent
  it('a second message with the same signature reuses the same instance', () => {
    const cache = cacheOf()
    const a = new TestAgent()
    cache.insert('agent:default:desktop:s1', a, 'sig')
    const hit = cache.lookup('agent:default:desktop:s1', { signature: 'sig', sessionId: 's1' })
    expect(hit).toEqual({ decision: 'reused', agent: a })
    expect(cache.get('agent:default:desktop:s1')?.signature).toBe('sig')
  })

  it('a different signature is a miss with decision config_changed', () => {
    const cache = cacheOf()
    cache.insert('k', new TestAgent(), 'sig-a')
    expect(cache.lookup('k', { signature: 'sig-b', sessionId: 's1' })).toEqual({
      decision: 'config_changed',
      agent: null
    })
    expect(cache.lookup('missing', { signature: 'x', sessionId: 's1' }).decision).toBe('new')
  })

  it('a rebuilt key soft-releases the displaced agent', async () => {
    const cache = cacheOf()
    const old = new TestAgent()
    cache.insert('k', old, 'a')
    cache.insert('k', new TestAgent(), 'b')
    await cache.drain()
    expect(old.calls).toEqual(['releaseClients'])
  })

  // seed 001: test_evict_on_session_reset
  // A compression moves the conversation to a new segment key (turn-runner.test.ts: "a turn that compressed").
  it('rekey moves an entry with its agent and snapshot; refused while the target key is held', async () => {
    const cache = cacheOf()
    const a = new TestAgent()
    cache.insert('k1', a, 'sig', { messageCount: 4, sessionId: 's1-c' })
    expect(cache.rekey('k1', 'k2')).toBe(true)
    expect(cache.keys()).toEqual(['k2'])
    expect(cache.get('k2')).toMatchObject({ agent: a, snapshot: { messageCount: 4, sessionId: 's1-c' } })
    cache.insert('k3', new TestAgent(), 'sig')
    expect(cache.rekey('k2', 'k3')).toBe(false) // another agent there
    cache.markRunning('k4', AGENT_PENDING)
    expect(cache.rekey('k2', 'k4')).toBe(false) // a turn starting there
    expect(cache.rekey('missing', 'k5')).toBe(false)
    expect(cache.get('k2')?.agent).toBe(a)
    await cache.drain()
    expect(a.calls).toEqual([])
  })

  it('evict removes only the target entry', async () => {
    const cache = cacheOf()
    const a = new TestAgent()
    const b = new TestAgent()
    cache.insert('telegram:12345', a, 'sig123')
    cache.insert('other', b, 'sig')
    expect(cache.evict('telegram:12345')).toBe(true)
    expect(cache.has('telegram:12345')).toBe(false)
    expect(cache.has('other')).toBe(true)
    await cache.drain()
    expect(a.calls).toEqual(['releaseClients'])
    expect(b.calls).toEqual([])
    expect(cache.evict('telegram:12345')).toBe(false)
  })

  it('evicting a running agent pops it but never tears it down', async () => {
    const cache = cacheOf()
    const a = new TestAgent()
    cache.insert('k', a, 'sig')
    cache.markRunning('k', a)
    expect(cache.evict('k')).toBe(true)
    await cache.drain()
    expect(a.calls).toEqual([])
    expect(a.client).not.toBeNull()
  })
})

describe('bounded growth (LRU cap)', () => {
  it('cap 3: the 4th insert evicts the oldest; touch rescues it', async () => {
    const cache = cacheOf({ cap: 3 })
    const agents = [0, 1, 2].map(() => new TestAgent())
    agents.forEach((a, i) => cache.insert(`s${i}`, a, 'sig'))
    cache.touch('s0')
    cache.insert('s3', new TestAgent(), 'sig')
    expect(cache.keys()).toEqual(['s2', 's0', 's3'])
    await cache.drain()
    // Eviction takes the soft path, never the hard close.
    expect(agents[1].calls).toEqual(['commitMemorySession', 'releaseClients'])
    expect(agents[1].taskState).toBe('alive')
  })

  // seed 001: test_cap_commits_memory_before_soft_release
  it('LRU eviction commits memory with the live transcript, then releases clients', async () => {
    const cache = cacheOf({ cap: 1 })
    const old = new TestAgent()
    old.sessionMessages = [{ role: 'user', content: 'hi' }]
    cache.insert('old', old, 'sig_old')
    cache.insert('new', new TestAgent(), 'sig_new')
    await cache.drain()
    expect(old.memoryCommits).toEqual([[{ role: 'user', content: 'hi' }]])
    expect(old.calls).toEqual(['commitMemorySession', 'releaseClients'])
    expect(old.sessionMessages).toEqual([])
  })

  // seed 001: test_plain_dict_cache_is_tolerated — upstream's fixture swaps in a plain dict with no order to
  // evict by; our cache is always an ordered Map, so the nearest equivalent is an unbounded cap.
  // NO USER ACTION REACHES THIS: upstream's cache size is a module constant (gateway/run.py
  // `_AGENT_CACHE_MAX_SIZE = 128`, changed only by tests' monkeypatch) with no config.yaml key, and so is ours
  // (DEFAULT_CACHE_CAP; host/services/runtime.ts builds the Gateway without `cap`). The cache is host-wide, across
  // profiles, so a profile's config.yaml could not own the setting either. This pins that an uncapped size
  // is plain arithmetic in enforceCap (no eviction, no crash), not a mode.
  it('an unbounded cache (cap Infinity) never enforces a cap: 200 agents stay, none released', async () => {
    const cache = cacheOf({ cap: Number.POSITIVE_INFINITY })
    const agents = Array.from({ length: 200 }, () => new TestAgent())
    agents.forEach((a, i) => cache.insert(`s${i}`, a, `sig${i}`))
    expect(cache.enforceCap()).toBe(0)
    expect(cache.size).toBe(200)
    await cache.drain()
    expect(agents.every((a) => a.calls.length === 0)).toBe(true)
  })

  // seed 001: test_fill_to_cap_then_spillover
  it('fill to cap, insert one more: the oldest goes, size stays at cap', () => {
    const CAP = 8
    const cache = cacheOf({ cap: CAP })
    for (let i = 0; i < CAP; i++) cache.insert(`s${i}`, new TestAgent(), 'sig')
    expect(cache.size).toBe(CAP)
    cache.insert('new', new TestAgent(), 'sig')
    expect(cache.has('s0')).toBe(false)
    expect(cache.has('new')).toBe(true)
    expect(cache.size).toBe(CAP)
  })
})

describe('active safety', () => {
  // seed 001: test_cap_skips_active_lru_entry
  it('a mid-turn LRU entry is skipped and nothing newer is evicted instead', async () => {
    const log = captureLogger()
    const cache = cacheOf({ cap: 2, log })
    const active = new TestAgent()
    const idleA = new TestAgent()
    const idleB = new TestAgent()
    cache.markRunning('session-active', active)
    cache.insert('session-active', active, 'sig')
    cache.insert('session-idle-a', idleA, 'sig')
    cache.insert('session-idle-b', idleB, 'sig')
    expect(cache.keys()).toEqual(['session-active', 'session-idle-a', 'session-idle-b'])
    await cache.drain()
    for (const a of [active, idleA, idleB]) expect(a.calls).toEqual([])
    // The active agent's client is untouched.
    expect(active.client).not.toBeNull()
    expect(
      log.records.some((r) => r.level === 'warn' && r.name === 'gateway.run' && r.message.includes('mid-turn'))
    ).toBe(true)
  })

  it('mixed window: only idle candidates inside the excess window are evicted', () => {
    const cache = cacheOf({ cap: 10 })
    const agents = Array.from({ length: 10 }, () => new TestAgent())
    agents.forEach((a, i) => cache.insert(`s${i}`, a, 'sig'))
    cache.markRunning('s0', agents[0])
    cache.markRunning('s2', agents[2])
    // Three more, one insert at a time: each pass looks only at the oldest `size − cap` entries.
    for (const k of ['n0', 'n1', 'n2']) cache.insert(k, new TestAgent(), 'sig')
    expect(cache.has('s0')).toBe(true)
    expect(cache.has('s1')).toBe(false)
    expect(cache.has('s2')).toBe(true)
    // s3 is outside every window: it is never evicted to compensate for the protected ones.
    for (const k of ['s3', 'n0', 'n1', 'n2']) expect(cache.has(k)).toBe(true)
    expect(cache.size).toBe(12)
  })

  it('all active: the cache stays over cap and a WARNING mentions mid-turn', () => {
    const log = captureLogger()
    const cache = cacheOf({ cap: 2, log })
    const agents = [new TestAgent(), new TestAgent(), new TestAgent()]
    agents.forEach((a, i) => cache.markRunning(`s${i}`, a))
    agents.forEach((a, i) => cache.insert(`s${i}`, a, 'sig'))
    expect(cache.size).toBe(3)
    const warn = log.records.find((r) => r.level === 'warn')
    expect(warn?.name).toBe('gateway.run')
    expect(warn?.message).toBe(
      'Agent cache over cap (3 > 2); 1 excess slot(s) held by mid-turn agents — will re-check on next insert.'
    )
  })

  it('a build placeholder in the running set does not block eviction', () => {
    const cache = cacheOf({ cap: 1 })
    cache.insert('old', new TestAgent(), 'sig')
    cache.markRunning('old', AGENT_PENDING)
    cache.insert('new', new TestAgent(), 'sig')
    expect(cache.keys()).toEqual(['new'])
    expect(cache.runningAgents().size).toBe(0)
  })

  it('the running set is identity-based', () => {
    const cache = cacheOf()
    const a = new TestAgent()
    const lookalike = Object.assign(new TestAgent(), { id: a.id })
    cache.markRunning('k', a)
    expect(cache.isRunning(a)).toBe(true)
    expect(cache.isRunning(lookalike)).toBe(false)
  })

  // seed 001: test_idle_sweep_skips_active_agent
  it('the idle sweep never evicts an active agent, however stale', async () => {
    const cache = cacheOf({ idleTtlSeconds: 0.01 })
    const oldButActive = new TestAgent(Date.now() - 10_000)
    cache.insert('s1', oldButActive, 'sig')
    cache.markRunning('s1', oldButActive)
    expect(cache.sweepIdle()).toBe(0)
    expect(cache.has('s1')).toBe(true)
    await cache.drain()
    expect(oldButActive.calls).toEqual([])
  })
})

describe('idle sweep', () => {
  it('evicts stale, keeps fresh, skips agents without an activity timestamp', async () => {
    const now = 100_000_000
    const cache = cacheOf({ idleTtlSeconds: 3600, clock: () => now })
    const stale = new TestAgent(now - 4000_000)
    const fresh = new TestAgent(now - 10_000)
    const unknown = new TestAgent(null)
    cache.insert('stale', stale, 'sig')
    cache.insert('fresh', fresh, 'sig')
    cache.insert('unknown', unknown, 'sig')
    expect(cache.sweepIdle()).toBe(1)
    expect(cache.keys()).toEqual(['fresh', 'unknown'])
    await cache.drain()
    expect(stale.calls).toEqual(['commitMemorySession', 'releaseClients'])
  })
})

describe('release semantics (idle resume)', () => {
  // seed 001: test_release_clients_does_not_touch_terminal_or_browser
  it('soft release drops the client but keeps task state (terminal, browser, background processes)', async () => {
    const cache = cacheOf({ idleTtlSeconds: 1, clock: () => 1e9 })
    const a = new TestAgent(0)
    cache.insert('k', a, 'sig')
    cache.sweepIdle()
    await cache.drain()
    expect(a.client).toBeNull()
    expect(a.taskState).toBe('alive')
    expect(a.calls).not.toContain('close')
  })

  // seed 001: test_close_vs_release_full_teardown_difference
  it('cache eviction is soft; session expiry is the only hard close', async () => {
    const cache = cacheOf()
    const soft = new TestAgent()
    const hard = new TestAgent()
    cache.insert('soft-session', soft, 'sig')
    cache.insert('hard-session', hard, 'sig')
    cache.evict('soft-session')
    expect(cache.expire('hard-session')).toBe(true)
    await cache.drain()
    expect(soft.taskState).toBe('alive')
    expect(hard.taskState).toBe('torn_down')
    expect(soft.calls).toEqual(['releaseClients'])
    expect(hard.calls).toEqual(['close'])
  })

  it('expire refuses a running agent', () => {
    const cache = cacheOf()
    const a = new TestAgent()
    cache.insert('k', a, 'sig')
    cache.markRunning('k', a)
    expect(cache.expire('k')).toBe(false)
    expect(cache.has('k')).toBe(true)
  })

  it("release runs in the owning profile scope, not the scheduler's", async () => {
    const seen: Array<{ home: string; secret: string | undefined }> = []
    class ScopeAgent extends TestAgent {
      override releaseClients() {
        seen.push({ home: getHermesHome(), secret: currentSecretScope()?.secrets.OWNER })
        return super.releaseClients()
      }
    }
    const cache = cacheOf({ cap: 1 })
    await multiplexed(async () => {
      cache.insert('agent:alpha:desktop:s', new ScopeAgent(), 'sig', {
        owner: { home: '/tmp/root/profiles/alpha', secrets: { OWNER: 'alpha' } }
      })
      cache.insert('agent:beta:desktop:s', new ScopeAgent(), 'sig', {
        owner: { home: '/tmp/root/profiles/beta', secrets: { OWNER: 'beta' } }
      })
      await cache.drain()
    })
    expect(seen).toEqual([{ home: '/tmp/root/profiles/alpha', secret: 'alpha' }])
  })

  it('a failing release is logged, not thrown', async () => {
    const log = captureLogger()
    const cache = cacheOf({ log })
    const a = new TestAgent()
    a.releaseClients = () => {
      throw new Error('socket already closed')
    }
    cache.insert('k', a, 'sig')
    cache.evict('k')
    await cache.drain()
    expect(log.records.some((r) => r.level === 'warn' && r.message.includes('socket already closed'))).toBe(true)
  })
})

// Depth > 0 in production: a completion notice (background delegation, terminal notify_on_complete) that
// waited on a running turn runs one level deeper (Gateway.deliverSaved, called from host/services/follow-ups.ts
// saveAndRun). turn-runner.test.ts drives those cases through it; these pin the rule itself.
describe('initCachedAgentForTurn', () => {
  const NOW = 10_000_000
  const stale = (seconds = 1800) => new TestAgent(NOW - seconds * 1000)

  // seed 001: test_fresh_turn_resets_idle_clock
  it('fresh turn resets the idle clock', () => {
    const a = stale()
    const old = a.lastActivityTs!
    initCachedAgentForTurn(a, 0, NOW)
    expect(a.lastActivityTs).toBe(NOW)
    expect(a.lastActivityTs).toBeGreaterThan(old)
    expect(a.lastActivityDesc).toBe('starting new turn (cached)')
    expect(a.apiCallCount).toBe(0)
  })

  // seed 001: test_fresh_turn_resets_provenance
  it('fresh turn resets provenance', () => {
    const a = stale()
    expect(a.lastActivityProvenance).toBe('compression')
    initCachedAgentForTurn(a, 0, NOW)
    expect(a.lastActivityProvenance).toBe('unknown')
  })

  // seed 001: test_interrupt_turn_preserves_idle_clock
  it('interrupt turn preserves the idle clock', () => {
    const a = stale(1200)
    const old = a.lastActivityTs
    initCachedAgentForTurn(a, 1, NOW)
    expect(a.lastActivityTs).toBe(old)
    expect(a.apiCallCount).toBe(0)
  })

  // seed 001: test_interrupt_turn_preserves_desc
  it('interrupt turn preserves the activity description', () => {
    const a = stale(1200)
    initCachedAgentForTurn(a, 1, NOW)
    expect(a.lastActivityDesc).toBe('previous turn activity')
  })

  // seed 001: test_interrupt_turn_preserves_provenance
  it('interrupt turn preserves provenance', () => {
    const a = stale(1200)
    initCachedAgentForTurn(a, 1, NOW)
    expect(a.lastActivityProvenance).toBe('compression')
  })

  // seed 001: test_deep_interrupt_recursion_preserves_idle_clock
  it('deep interrupt recursion preserves the idle clock', () => {
    const a = stale(600)
    const old = a.lastActivityTs
    initCachedAgentForTurn(a, 4, NOW) // upstream's depth cap is 3 (so is deliver's): any depth > 0 keeps it
    expect(a.lastActivityTs).toBe(old)
  })

  // seed 001: test_fresh_turn_resets_flush_cursor
  it('fresh turn resets the flush cursor only when the agent has one', () => {
    const a = Object.assign(stale(), { lastFlushedDbIdx: 42 })
    initCachedAgentForTurn(a, 0, NOW)
    expect(a.lastFlushedDbIdx).toBe(0)
    const b = stale()
    initCachedAgentForTurn(b, 0, NOW)
    expect('lastFlushedDbIdx' in b).toBe(false)
  })

  it('lookup applies it to a reused agent and refreshes maxIterations', () => {
    const cache = cacheOf({ clock: () => NOW })
    const a = stale()
    cache.insert('k', a, 'sig')
    cache.lookup('k', { signature: 'sig', sessionId: null, maxIterations: 33 })
    expect(a).toMatchObject({ lastActivityTs: NOW, apiCallCount: 0, maxIterations: 33 })
  })
})
