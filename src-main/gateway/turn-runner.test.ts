import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EnvFileVault } from '../secrets'
import { CaduceusError, type EventName, type EventPayload } from '@shared/contract'
import { currentSecretScope, getHermesHome } from '../scope'
import { StoreRegistry, type SessionStore } from '../store'
import { Gateway, getSessionEnv, asyncDeliverySupported, TURN_CHANNELS, type BuildAgentInput } from './index'
import { captureLogger } from './test-fixtures/capture-logger'
import { type TurnDeltaLike } from './gateway-types'
import { TestAgent } from './test-fixtures/test-agent'

/** A small real agent: writes its turn to the real store and reports what scope it ran in. */
class StoreAgent extends TestAgent {
  seen: Array<{ home: string; key: string | undefined; platform: string; async: boolean }> = []
  gate: Promise<void> | null = null
  interrupted = false
  failWith: string | null = null
  startupNotices: string[] = []
  /** While set, each turn waits for its own release (in `holds`), so messages can arrive mid-turn. */
  hold = false
  holds: Array<() => void> = []
  /** The activity clock each turn started with (what the cache left of the previous turn's). */
  starts: Array<{ text: string; ts: number | null; desc: string; provenance: string }> = []
  /** The activity clock each turn left behind. */
  ends: Record<string, number> = {}
  constructor(readonly input: BuildAgentInput<SessionStore>) {
    super()
  }
  get sessionId() {
    return this.input.sessionId
  }
  /** The next turn compresses mid-turn. */
  compressNext = false
  /** What steer() answers, and the messages it took. */
  acceptSteer = true
  steered: string[] = []
  steer(text: string) {
    if (this.acceptSteer) this.steered.push(text)
    return this.acceptSteer
  }
  interrupt() {
    this.interrupted = true
    for (const release of this.holds.splice(0)) release() // a held turn ends at its next safe point
  }
  async runTurn(
    text: string,
    o: { onDelta?: (d: TurnDeltaLike) => void; signal?: AbortSignal; savedUserMessageId?: number }
  ) {
    this.interrupted = false // like the real Agent: an interrupt ends the turn it hit, not the next one
    this.seen.push({
      home: getHermesHome(),
      key: currentSecretScope()?.secrets.OPENAI_API_KEY,
      platform: getSessionEnv('HERMES_SESSION_PLATFORM'),
      async: asyncDeliverySupported()
    })
    this.starts.push({
      text,
      ts: this.lastActivityTs,
      desc: this.lastActivityDesc,
      provenance: this.lastActivityProvenance
    })
    // Like the real Agent: the gateway already saved the user's message (durable before resume answers).
    if (o.savedUserMessageId === undefined)
      await this.input.store.appendMessage(this.input.sessionId, { role: 'user', content: text })
    if (this.gate) await this.gate
    // like the real Agent, a caller's abort (also one from before the turn began) ends the wait
    if (this.hold && !o.signal?.aborted)
      await new Promise<void>((r) => {
        this.holds.push(r)
        o.signal?.addEventListener('abort', () => r(), { once: true })
      })
    if (this.failWith) throw new Error(this.failWith)
    if (this.compressNext) {
      // Like the real Agent's compression: the segment ends 'compression' and the turn goes on in its continuation.
      this.compressNext = false
      const tip = `${this.input.sessionId}-c`
      await this.input.store.endSession(this.input.sessionId, 'compression')
      await this.input.store.createSession(tip, 'desktop', { parentSessionId: this.input.sessionId })
      ;(this.input as { sessionId: string }).sessionId = tip
    }
    // Like the real Agent's touch(): the turn's last activity is what it worked on.
    // A minute back: distinct from the clock a fresh turn sets, well inside the idle TTL.
    this.lastActivityTs = Date.now() - 60_000 - this.starts.length
    this.ends[text] = this.lastActivityTs
    this.lastActivityDesc = `worked on ${text}`
    this.lastActivityProvenance = 'tool'
    o.onDelta?.({ kind: 'text', text: 'ok' })
    await this.input.store.appendMessage(this.input.sessionId, { role: 'assistant', content: 'ok' })
    const status = o.signal?.aborted || this.interrupted ? ('interrupted' as const) : ('completed' as const)
    return {
      status,
      tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0.001,
      costStatus: 'estimated' as const,
      apiCalls: 1
    }
  }
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

function setup(
  opts: {
    buildFails?: string
    idleTtlSeconds?: number
    notices?: string[]
    buildGate?: { p: Promise<void> | null }
    /** Appended to each profile's config.yaml (e.g. a `display:` section). */
    config?: string
    activeSubagents?: (profile: string, sessionId: string) => number
  } = {}
) {
  const root = mkdtempSync(join(tmpdir(), 'cad-gw-'))
  mkdirSync(join(root, 'profiles', 'work'), { recursive: true })
  for (const [home, key] of [
    [root, 'sk-default-0001'],
    [join(root, 'profiles', 'work'), 'sk-work-0002']
  ]) {
    writeFileSync(join(home, 'config.yaml'), `model: {default: m, provider: openai}\n${opts.config ?? ''}`)
    writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${key}\n`)
  }
  const registry = new StoreRegistry(root)
  const agents: StoreAgent[] = []
  const events: Array<{ event: EventName; payload: any }> = []
  const log = captureLogger()
  const gateway = new Gateway<StoreAgent, SessionStore>({
    vault: new EnvFileVault(),
    root,
    stores: registry,
    log,
    idleTtlSeconds: opts.idleTtlSeconds,
    activeSubagents: opts.activeSubagents,
    buildAgent: async (i) => {
      if (opts.buildGate?.p) await opts.buildGate.p
      if (opts.buildFails) throw new Error(opts.buildFails)
      const a = new StoreAgent(i)
      if (opts.notices) a.startupNotices = [...opts.notices]
      agents.push(a)
      return a
    },
    emit: <K extends EventName>(event: K, payload: EventPayload<K>) => void events.push({ event, payload })
  })
  cleanups.push(async () => {
    await gateway.shutdown()
    registry.closeAll()
  })
  return { root, registry, gateway, agents, events, log }
}

/** A session whose second turn ('long') is held running on its cached agent (released by an interrupt or by hand). */
async function heldTurn(g: ReturnType<typeof setup>) {
  const { waitUntil } = await import('../tools/test-fixtures/helpers')
  const first = await g.gateway.start({ profile: 'default', text: 'one' })
  await g.gateway.finished(first.turnId)
  const sid = first.sessionId
  const agent = g.agents[0]!
  agent.hold = true
  const running = await g.gateway.resume({ profile: 'default', sessionId: sid, text: 'long' }) // depth 0
  await waitUntil(() => agent.holds.length === 1)
  return { sid, agent, running, waitUntil }
}

/** The turn.finished a turn emitted (a queued turn's id is known before any `finished()` promise exists). */
async function turnEnd(events: ReturnType<typeof setup>['events'], turnId: string) {
  const { waitUntil } = await import('../tools/test-fixtures/helpers')
  const ended = () => events.find((e) => e.event === 'turn.finished' && e.payload.turnId === turnId)
  await waitUntil(() => ended() !== undefined)
  return ended()!.payload as EventPayload<'turn.finished'>
}

/** A notice's save as the completion paths hand one to deliverSaved: appended to the live tip it is given. */
const saveNotice = (registry: StoreRegistry, text: string) => async (tip: string) => ({
  messageId: await registry.get('default').appendMessage(tip, { role: 'user', content: text }),
  text
})

describe('Gateway', () => {
  it('shows an agent start-up warning once, as a notice on its first turn', async () => {
    const { gateway, events } = setup({
      notices: ["Memory provider 'shared' is unavailable for this profile; continuing without it."]
    })
    const h = await gateway.start({ profile: 'default', text: 'hi' })
    await gateway.finished(h.turnId)
    const h2 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'again' })
    await gateway.finished(h2.turnId)
    const notices = events.filter((e) => e.event === 'turn.delta' && e.payload.kind === 'notice')
    expect(notices).toHaveLength(1)
    expect(notices[0]!.payload).toMatchObject({ turnId: h.turnId, text: expect.stringContaining("'shared'") })
  })

  // seed 001 / hermes-spec §3.4: upstream's session key outlives a compression, so the warm agent serves the
  // continuation; ours names the segment, and the entry follows the conversation to its tip.
  it('a turn that compressed: the next turn on the continuation reuses the agent, whose memory is committed once', async () => {
    const { gateway, events, agents } = setup()
    const h = await gateway.start({ profile: 'default', text: 'hi' })
    await gateway.finished(h.turnId)
    agents[0]!.compressNext = true
    const h2 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'compress now' })
    await gateway.finished(h2.turnId)
    const h3 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'after' })
    await gateway.finished(h3.turnId)
    expect(h3.sessionId).toBe(`${h.sessionId}-c`)
    expect(events.filter((e) => e.event === 'turn.started').map((e) => e.payload.cache)).toEqual([
      'new',
      'reused',
      'reused'
    ])
    expect(agents).toHaveLength(1)
    expect(gateway.state().agents.map((a) => a.sessionId)).toEqual([`${h.sessionId}-c`])
    // the message-count guard's baseline is the continuation's own rows (its reply, then 'after' and its reply)
    expect(gateway.state().agents[0]!.messageCountSnapshot).toBe(3)
    expect(gateway.cache.sweepIdle(Date.now() + 2 * 3600_000)).toBe(1)
    await gateway.cache.drain()
    expect(agents.map((a) => a.memoryCommits.length)).toEqual([1])
  })

  it('start then resume: new, then reused; turn events carry the handle', async () => {
    const { gateway, events, agents } = setup()
    const h = await gateway.start({ profile: 'default', text: 'hi' })
    const f = await gateway.finished(h.turnId)
    expect(f).toMatchObject({
      status: 'completed',
      apiCalls: 1,
      cost: { usd: 0.001, status: 'estimated', complete: true }
    })
    const h2 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'again' })
    await gateway.finished(h2.turnId)
    expect(events.filter((e) => e.event === 'turn.started').map((e) => e.payload.cache)).toEqual(['new', 'reused'])
    expect(events.find((e) => e.event === 'turn.delta')?.payload).toMatchObject({ ...h, kind: 'text', text: 'ok' })
    expect(agents).toHaveLength(1)
    expect(gateway.state()).toMatchObject({
      cap: 128,
      idleTtlSeconds: 3600,
      agents: [{ profile: 'default', sessionId: h.sessionId, turns: 2, messageCountSnapshot: 4, running: false }]
    })
  })

  it('the state sent to the renderer carries no hash derived from the key (issue 10)', async () => {
    const { gateway } = setup()
    const h = await gateway.start({ profile: 'default', text: 'hi' })
    await gateway.finished(h.turnId)
    const [key, entry] = gateway.cache.entries()[0]!
    const shown = gateway.state().agents.find((a) => a.key === key)!.signature
    // The cache signature hashes the key; what is shown is keyed with a per-process secret instead.
    expect(shown).toMatch(/^[0-9a-f]{16}$/)
    expect(shown).not.toBe(entry.signature)
    expect(entry.signature).not.toContain(shown)
  })

  it('each turn runs in its own profile scope with the desk-chat capability', async () => {
    const { gateway, agents, root } = setup()
    const a = await gateway.start({ profile: 'default', text: 'a' })
    const b = await gateway.start({ profile: 'work', text: 'b' })
    await Promise.all([gateway.finished(a.turnId), gateway.finished(b.turnId)])
    expect(agents.map((x) => x.seen[0])).toEqual([
      { home: root, key: 'sk-default-0001', platform: 'desktop', async: true },
      { home: join(root, 'profiles', 'work'), key: 'sk-work-0002', platform: 'desktop', async: true }
    ])
  })

  it('bad input, unknown profile and unknown session are clear errors', async () => {
    const { gateway } = setup()
    await expect(gateway.resume({ profile: 'default', sessionId: 's', text: '   ' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'text'
    })
    await expect(gateway.resume({ profile: 'Bad Name', sessionId: 's', text: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'profile'
    })
    await expect(gateway.start({ profile: 'ghost', text: 'x' })).rejects.toMatchObject({ code: 'not_found' })
    await expect(gateway.resume({ profile: 'default', sessionId: 'nope', text: 'x' })).rejects.toMatchObject({
      code: 'not_found'
    })
  })

  it('a second turn on a running session is a conflict; stop interrupts; evict is refused while running', async () => {
    const { gateway, agents } = setup()
    const first = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(first.turnId)
    let open!: () => void
    agents[0].gate = new Promise((r) => (open = r))
    const h = await gateway.resume({ profile: 'default', sessionId: first.sessionId, text: 'long' })
    await expect(gateway.resume({ profile: 'default', sessionId: first.sessionId, text: 'x' })).rejects.toMatchObject({
      code: 'conflict'
    })
    const key = gateway.state().agents[0].key
    expect(gateway.state().agents[0].running).toBe(true)
    expect(gateway.evict(key)).toBe(false)
    expect(gateway.stop(h.turnId)).toBe(true)
    open()
    expect((await gateway.finished(h.turnId))?.status).toBe('interrupted')
    expect(agents[0].interrupted).toBe(true)
    expect(gateway.stop(h.turnId)).toBe(false)
    expect(gateway.evict(key)).toBe(true)
    await gateway.cache.drain()
    expect(agents[0].calls).toEqual(['releaseClients'])
  })

  // seed 001: test_interrupt_turn_preserves_idle_clock / _desc / _provenance and
  // test_deep_interrupt_recursion_preserves_idle_clock, through the production caller: host/services/follow-ups.ts
  // saveAndRun → gateway.deliverSaved, reached when a background delegation or a terminal process started
  // with notify_on_complete finishes while the user's next turn is still running.
  it('a notice that waited on a running turn follows it one level deeper, keeping its activity clock; past depth 3 it starts fresh', async () => {
    const g = setup()
    const { gateway, agents, registry } = g
    const { sid, agent, running, waitUntil } = await heldTurn(g)
    const delivered: Array<Promise<{ turnId: string }>> = []
    for (let n = 1; n <= 4; n++) {
      // A notice arrives while a turn runs, as the delegation / process completion paths send one.
      await waitUntil(() => agent.holds.length === 1)
      // deliverSaved() waits behind the running turn synchronously, before its first await; it saves once it is due.
      delivered.push(
        gateway
          .deliverSaved({ profile: 'default', sessionId: sid, save: saveNotice(registry, `notice ${n}`) })
          .then((h) => h!)
      )
      agent.holds.shift()!()
    }
    await waitUntil(() => agent.holds.length === 1)
    agent.holds.shift()!()
    agent.hold = false
    const turns = await Promise.all(delivered)
    for (const t of turns) expect((await gateway.finished(t.turnId))?.status).toBe('completed')
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    const byText = Object.fromEntries(agent.starts.map((s) => [s.text, s]))
    // Depth 0 (a fresh turn on the reused agent) restarts the clock.
    expect(byText.long).toMatchObject({ desc: 'starting new turn (cached)', provenance: 'unknown' })
    expect(byText.long!.ts).toBeGreaterThan(agent.ends.one!)
    // Depths 1..3 keep the clock, description and provenance of the turn they followed.
    for (const [n, after] of [
      [1, 'long'],
      [2, 'notice 1'],
      [3, 'notice 2']
    ] as const)
      expect(byText[`notice ${n}`]).toEqual({
        text: `notice ${n}`,
        ts: agent.ends[after],
        desc: `worked on ${after}`,
        provenance: 'tool'
      })
    // Upstream queues past _MAX_INTERRUPT_DEPTH: the fourth notice is answered as a fresh turn.
    expect(byText['notice 4']).toMatchObject({ desc: 'starting new turn (cached)', provenance: 'unknown' })
    // One agent served them all (reused, never rebuilt by our own notice writes).
    expect(agents).toHaveLength(1)
  })

  // Upstream's default busy input mode ('interrupt'), reached from the desk chat: Send while a turn runs →
  // src-renderer/stores/turns.ts sendMessage(…, { whileBusy: true }) → sessions.resume.
  it('a message sent with interrupt stops the running turn and runs next, one level deeper, on the same agent', async () => {
    const { gateway, agents } = setup()
    const { waitUntil } = await import('../tools/test-fixtures/helpers')
    const first = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(first.turnId)
    const sid = first.sessionId
    const agent = agents[0]!
    // Nothing running: an ordinary turn (depth 0, a fresh clock).
    const idle = await gateway.resume({ profile: 'default', sessionId: sid, text: 'idle', whileBusy: true })
    expect((await gateway.finished(idle.turnId))?.status).toBe('completed')
    agent.hold = true
    const running = await gateway.resume({ profile: 'default', sessionId: sid, text: 'long' })
    await waitUntil(() => agent.holds.length === 1)
    agent.hold = false
    const next = await gateway.resume({ profile: 'default', sessionId: sid, text: 'instead', whileBusy: true })
    expect((await gateway.finished(running.turnId))?.status).toBe('interrupted')
    expect((await gateway.finished(next.turnId))?.status).toBe('completed')
    const byText = Object.fromEntries(agent.starts.map((s) => [s.text, s]))
    expect(byText.idle).toMatchObject({ desc: 'starting new turn (cached)', provenance: 'unknown' })
    expect(byText.instead).toEqual({ text: 'instead', ts: agent.ends.long, desc: 'worked on long', provenance: 'tool' })
    expect(agents).toHaveLength(1)
  })

  it('a turn still starting (its agent being built) is stopped as soon as it starts, and the message runs next', async () => {
    const gate: { p: Promise<void> | null } = { p: null }
    const { gateway, agents } = setup({ buildGate: gate })
    const first = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(first.turnId)
    expect(gateway.evict(gateway.state().agents[0]!.key)).toBe(true) // the next turn builds its agent
    let open!: () => void
    gate.p = new Promise((r) => (open = r))
    const long = gateway.resume({ profile: 'default', sessionId: first.sessionId, text: 'long' })
    await new Promise((r) => setTimeout(r, 20))
    const next = gateway.resume({ profile: 'default', sessionId: first.sessionId, text: 'instead', whileBusy: true })
    await new Promise((r) => setTimeout(r, 20))
    gate.p = null
    open()
    expect((await gateway.finished((await long).turnId))?.status).toBe('interrupted')
    expect((await gateway.finished((await next).turnId))?.status).toBe('completed')
    expect(agents.at(-1)!.starts.map((s) => s.text)).toEqual(['long', 'instead'])
  })

  it('a notice woken with the interrupting message is stopped too: the message is not left behind it', async () => {
    const g = setup()
    const { gateway, registry } = g
    const { sid, agent, running } = await heldTurn(g)
    const delivered = gateway.deliverSaved({ profile: 'default', sessionId: sid, save: saveNotice(registry, 'notice') })
    const next = await gateway.resume({ profile: 'default', sessionId: sid, text: 'instead', whileBusy: true })
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('interrupted')
    expect((await gateway.finished((await delivered)!.turnId))?.status).toBe('interrupted')
    expect((await gateway.finished(next.turnId))?.status).toBe('completed')
  })

  it('a turn that compressed mid-turn is still the conversation’s: a message interrupts it, a plain resume is refused', async () => {
    const g = setup()
    const { gateway, registry } = g
    const { sid, agent, running } = await heldTurn(g)
    const store = registry.get('default')
    // the running turn compresses: its segment ends 'compression' and the conversation continues in the next one
    await store.endSession(sid, 'compression')
    await store.createSession(`${sid}-2`, 'desktop', { parentSessionId: sid })
    ;(agent.input as { sessionId: string }).sessionId = `${sid}-2` // as the real Agent moves on with it
    expect(store.resolveResumeSessionId(sid)).toBe(`${sid}-2`)
    await expect(gateway.resume({ profile: 'default', sessionId: sid, text: 'x' })).rejects.toMatchObject({
      code: 'conflict'
    })
    agent.hold = false
    const next = await gateway.resume({ profile: 'default', sessionId: sid, text: 'instead', whileBusy: true })
    expect((await gateway.finished(running.turnId))?.status).toBe('interrupted')
    expect(next.sessionId).toBe(`${sid}-2`)
    expect((await gateway.finished(next.turnId))?.status).toBe('completed')
  })

  it("a message sent during another channel's turn (an API request's) is queued: that turn runs on, then it runs", async () => {
    const g = setup()
    const { gateway, agents } = g
    const { waitUntil } = await import('../tools/test-fixtures/helpers')
    const first = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(first.turnId)
    const agent = agents[0]!
    agent.hold = true
    const api = gateway.runChannelTurn({
      profile: 'default',
      channel: TURN_CHANNELS.api,
      text: 'from the api',
      sessionId: first.sessionId
    })
    await waitUntil(() => agent.holds.length === 1)
    const after = await gateway.resume({
      profile: 'default',
      sessionId: first.sessionId,
      text: 'after',
      whileBusy: true
    })
    expect(after).toMatchObject({ busy: 'queued', note: expect.stringContaining('api_server turn is running') })
    // the app's Stop (turns.stop, host/handlers/agent.ts) refuses it too; an unknown id is no turn
    const apiTurn = gateway.activeTurns().turns.find((t) => t.source === 'api_server')!.turnId
    expect(() => gateway.stopDeskTurn(apiTurn)).toThrow(/can only be stopped where it started/)
    expect(gateway.stopDeskTurn('turn_unknown')).toBe(false)
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await api).status).toBe('completed')
    expect(await turnEnd(g.events, after.turnId)).toMatchObject({ status: 'completed' })
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'from the api', 'after'])
  })

  // A completion notice (delegation, background process) is saved once the conversation is idle; a message the
  // user queued meanwhile begins in the tick the running turn ends, so the notice must wait for that turn too, or it
  // lands between the queued message and its reply (upstream resuming the session would replay it mid-turn).
  it('deliverSaved saves only after the turns queued on the conversation, not only the running one', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events } = g
    const { sid, agent, running } = await heldTurn(g)
    let idleAt: number | null = null
    const idle = gateway.deliverSaved({
      profile: 'default',
      sessionId: sid,
      save: async () => {
        idleAt = events.length
        return null
      }
    })
    const q1 = await gateway.resume({ profile: 'default', sessionId: sid, text: 'first after', whileBusy: true })
    expect(q1).toMatchObject({ busy: 'queued' })
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    await idle
    const q1End = events.findIndex((e) => e.event === 'turn.finished' && e.payload.turnId === q1.turnId)
    expect(q1End).toBeGreaterThanOrEqual(0) // the queued turn had ended when the conversation was called idle
    expect(q1End).toBeLessThan(idleAt!)
  })

  // The slot is taken in the tick the conversation was seen idle and handed to the notice's turn: a message sent at
  // any moment of the save (here from inside it) finds the conversation busy, so no turn begins between "idle" and
  // the append and the notice never lands among another turn's rows.
  it('deliverSaved holds the conversation through the save: a message sent meanwhile follows the notice', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, registry, agents, events } = g
    const first = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(first.turnId)
    const sid = first.sessionId
    let meanwhile: ReturnType<typeof gateway.resume> | undefined
    const notice = await gateway.deliverSaved({
      profile: 'default',
      sessionId: sid,
      save: async (tip) => {
        meanwhile = gateway.resume({ profile: 'default', sessionId: sid, text: 'sent meanwhile', whileBusy: true })
        await expect(gateway.resume({ profile: 'default', sessionId: sid, text: 'plain' })).rejects.toMatchObject({
          code: 'conflict'
        })
        return saveNotice(registry, 'notice')(tip)
      }
    })
    const queued = await meanwhile!
    expect(queued).toMatchObject({ busy: 'queued' })
    expect((await gateway.finished(notice!.turnId))?.status).toBe('completed')
    expect(await turnEnd(events, queued.turnId)).toMatchObject({ status: 'completed' })
    expect(agents[0]!.starts.map((x) => x.text)).toEqual(['one', 'notice', 'sent meanwhile'])
    const rows = registry.get('default').getMessagesAsConversation(sid)
    expect(rows.map((m) => `${m.role}:${m.content}`).filter((r) => r.startsWith('user'))).toEqual([
      'user:one',
      'user:notice',
      'user:sent meanwhile'
    ])
  })

  // display.busy_input_mode (upstream's gateway; golden reader cases in src-main/config/config.test.ts), reached from
  // the desk chat: Send while a turn runs → turns.ts sendMessage(…, { busyMode }) → sessions.resume whileBusy.
  it('queue mode: messages sent mid-turn wait, in order, each its own turn one level deeper; the turn is not stopped', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events, registry } = g
    const { sid, agent, running } = await heldTurn(g)
    const q1 = await gateway.resume({ profile: 'default', sessionId: sid, text: 'first after', whileBusy: true })
    const q2 = await gateway.resume({ profile: 'default', sessionId: sid, text: 'second after', whileBusy: true })
    expect(q1).toMatchObject({ busy: 'queued', sessionId: sid })
    expect(q1).not.toHaveProperty('note')
    const queued = events.filter((e) => e.event === 'turn.queued').map((e) => e.payload)
    expect(queued).toEqual([
      { turnId: q1.turnId, profile: 'default', sessionId: sid, text: 'first after', position: 1 },
      { turnId: q2.turnId, profile: 'default', sessionId: sid, text: 'second after', position: 2 }
    ])
    // nothing is stored until its turn runs, and the running turn goes on
    const texts = () =>
      registry
        .get('default')
        .getMessagesAsConversation(sid)
        .map((m) => m.content)
    expect(texts()).not.toContain('first after')
    expect(agent.interrupted).toBe(false)
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    expect(await turnEnd(events, q1.turnId)).toMatchObject({ status: 'completed' })
    expect(await turnEnd(events, q2.turnId)).toMatchObject({ status: 'completed' })
    // each ran as the next turn on the same agent, keeping the clock of the turn it waited for (seed 001's depth)
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long', 'first after', 'second after'])
    const byText = Object.fromEntries(agent.starts.map((x) => [x.text, x]))
    expect(byText['first after']).toMatchObject({ ts: agent.ends.long, desc: 'worked on long' })
    expect(byText['second after']).toMatchObject({ ts: agent.ends['first after'] })
    expect(texts().filter((t) => t !== 'ok')).toEqual(['one', 'long', 'first after', 'second after'])
  })

  it('turns.active lists what runs and waits, and how a known turn that ended meanwhile ended', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway } = g
    const { sid, agent, running } = await heldTurn(g)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    expect(gateway.activeTurns([running.turnId])).toEqual({
      turns: [
        { ...running, status: 'running', source: 'desktop' },
        { turnId: q.turnId, profile: 'default', sessionId: sid, status: 'queued', source: 'desktop', text: 'after' }
      ],
      finished: []
    })
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    await gateway.finished(running.turnId)
    await turnEnd(g.events, q.turnId)
    const after = gateway.activeTurns([running.turnId, q.turnId, 'turn_never'])
    expect(after.turns).toEqual([])
    expect(after.finished.map((f) => [f.turnId, f.status])).toEqual([
      [running.turnId, 'completed'],
      [q.turnId, 'completed']
    ])
  })

  it('queue mode: Stop on a queued message cancels it (never stored, never run); a full queue refuses', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events, registry } = g
    const { sid, agent, running } = await heldTurn(g)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'never mind', whileBusy: true })
    expect(gateway.stopDeskTurn(q.turnId)).toBe(true)
    expect(await turnEnd(events, q.turnId)).toMatchObject({ status: 'interrupted', apiCalls: 0 })
    expect(gateway.stopDeskTurn(q.turnId)).toBe(false) // gone
    for (let i = 0; i < 32; i++)
      await gateway.resume({ profile: 'default', sessionId: sid, text: `m${i}`, whileBusy: true })
    await expect(
      gateway.resume({ profile: 'default', sessionId: sid, text: 'one too many', whileBusy: true })
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('32 messages') })
    for (const e of events.filter((x) => x.event === 'turn.queued').slice(1)) gateway.stopDeskTurn(e.payload.turnId)
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    const after = await gateway.resume({ profile: 'default', sessionId: sid, text: 'later' })
    await gateway.finished(after.turnId)
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long', 'later'])
    expect(
      registry
        .get('default')
        .getMessagesAsConversation(sid)
        .map((m) => m.content)
    ).not.toContain('never mind')
  })

  it('queue mode: a queued message whose turn cannot start says so on its turn', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events, root } = g
    const { sid, agent, running } = await heldTurn(g)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    writeFileSync(join(root, 'config.yaml'), 'model: [unclosed\n') // broken before its turn comes
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    await gateway.finished(running.turnId)
    expect(await turnEnd(events, q.turnId)).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^Your queued message was not sent: config\.yaml is not valid YAML/)
    })
  })

  it('steer mode: the running agent takes the message at its next step; it falls back to the queue when it cannot', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: steer\n' })
    const { gateway, events } = g
    const { sid, agent, running } = await heldTurn(g)
    const steered = await gateway.resume({ profile: 'default', sessionId: sid, text: 'make it blue', whileBusy: true })
    expect(steered).toEqual({ ...running, busy: 'steered' })
    expect(agent.steered).toEqual(['make it blue'])
    expect(agent.interrupted).toBe(false)
    agent.acceptSteer = false // e.g. the turn is past its last step
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'and round', whileBusy: true })
    expect(q).toMatchObject({ busy: 'queued', note: expect.stringContaining('could not take it') })
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    expect(await turnEnd(events, q.turnId)).toMatchObject({ status: 'completed' })
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long', 'and round'])
  })

  it('interrupt mode queues instead while subagents of the session are at work (upstream would end them)', async () => {
    const working = new Set<string>()
    const g = setup({ activeSubagents: (_p, sid) => (working.has(sid) ? 1 : 0) })
    const { gateway, events } = g
    const { sid, agent, running } = await heldTurn(g)
    working.add(sid)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    expect(q).toMatchObject({ busy: 'queued', note: expect.stringContaining('subagents of this conversation') })
    expect(agent.interrupted).toBe(false)
    working.delete(sid)
    agent.hold = false // 'long' stays held until the interrupt; what runs after it does not wait
    const now = await gateway.resume({ profile: 'default', sessionId: sid, text: 'now', whileBusy: true })
    expect(now.busy).toBe('interrupted')
    expect((await gateway.finished(running.turnId))?.status).toBe('interrupted')
    expect(await turnEnd(events, q.turnId)).toMatchObject({ status: 'completed' })
    // the queued message waited first, so it runs first; the interrupting one follows it
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long', 'after', 'now'])
  })

  it('interrupt mode queues instead while the running turn compresses the conversation', async () => {
    const g = setup()
    const { gateway, events } = g
    const { sid, agent, running } = await heldTurn(g)
    ;(agent as { compressing?: boolean }).compressing = true
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    expect(q).toMatchObject({ busy: 'queued', note: expect.stringContaining('being compressed') })
    expect(agent.interrupted).toBe(false)
    ;(agent as { compressing?: boolean }).compressing = false
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    expect((await gateway.finished(running.turnId))?.status).toBe('completed')
    expect(await turnEnd(events, q.turnId)).toMatchObject({ status: 'completed' })
  })

  // The running turn compresses: the first queued message begins on the continuation's key, so a waiter that watched
  // the old key would find it free and collide (a third review found it lost, with no turn.finished).
  it('queue mode across a mid-turn compression: every queued message runs, each with its own turn.finished', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events, registry } = g
    const { sid, agent, running, waitUntil } = await heldTurn(g)
    const store = registry.get('default')
    await store.endSession(sid, 'compression')
    await store.createSession(`${sid}-2`, 'desktop', { parentSessionId: sid })
    ;(agent.input as { sessionId: string }).sessionId = `${sid}-2` // as the real Agent moves on with it
    const q1 = await gateway.resume({ profile: 'default', sessionId: sid, text: 'first after', whileBusy: true })
    const q2 = await gateway.resume({ profile: 'default', sessionId: sid, text: 'second after', whileBusy: true })
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    await gateway.finished(running.turnId)
    expect(await turnEnd(events, q1.turnId)).toMatchObject({ status: 'completed' })
    // nothing runs or starts any more: by now q2 has ended too
    await waitUntil(() => (gateway as unknown as { busy: Map<string, unknown> }).busy.size === 0)
    const ended = events.filter((e) => e.event === 'turn.finished' && e.payload.turnId === q2.turnId)
    expect(ended.map((e) => e.payload.status)).toEqual(['completed'])
  })

  // While its agent is built (or memory prepared) a queued turn is still shown queued with Cancel: Stop must reach it.
  it('queue mode: Cancel on a queued message whose turn is still starting stops it', async () => {
    const gate: { p: Promise<void> | null } = { p: null }
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n', buildGate: gate })
    const { gateway, events, root, agents } = g
    const { sid, agent, running, waitUntil } = await heldTurn(g)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    // the config changes before its turn comes: that turn builds a fresh agent (held at the gate)
    writeFileSync(
      join(root, 'config.yaml'),
      'model: {default: m2, provider: openai}\ndisplay:\n  busy_input_mode: queue\n'
    )
    let open!: () => void
    gate.p = new Promise<void>((r) => (open = r))
    agent.hold = false
    for (const release of agent.holds.splice(0)) release()
    await gateway.finished(running.turnId)
    await waitUntil(() => gateway.cache.runningKeys().length === 1) // its agent is being built
    expect(events.some((e) => e.event === 'turn.started' && e.payload.turnId === q.turnId)).toBe(false)
    const cancelled = gateway.stopDeskTurn(q.turnId)
    gate.p = null
    open()
    const end = await turnEnd(events, q.turnId)
    expect(cancelled).toBe(true)
    expect(end.status).toBe('interrupted')
    expect(agents.flatMap((a) => a.starts.map((x) => x.text))).not.toContain('after')
  })

  it('two messages sent to interrupt one turn both run, in order: the second does not stop the first', async () => {
    const g = setup()
    const { gateway } = g
    const { sid, agent, running } = await heldTurn(g)
    agent.hold = false // 'long' stays held until the interrupt; what follows does not wait
    const first = gateway.resume({ profile: 'default', sessionId: sid, text: 'first', whileBusy: true })
    const second = gateway.resume({ profile: 'default', sessionId: sid, text: 'second', whileBusy: true })
    expect((await gateway.finished(running.turnId))?.status).toBe('interrupted')
    expect((await gateway.finished((await first).turnId))?.status).toBe('completed')
    expect((await gateway.finished((await second).turnId))?.status).toBe('completed')
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long', 'first', 'second'])
  })

  it('shutdown tells each queued message it was not sent', async () => {
    const g = setup({ config: 'display:\n  busy_input_mode: queue\n' })
    const { gateway, events } = g
    const { sid, agent } = await heldTurn(g)
    const q = await gateway.resume({ profile: 'default', sessionId: sid, text: 'after', whileBusy: true })
    await gateway.shutdown()
    expect(await turnEnd(events, q.turnId)).toMatchObject({
      status: 'error',
      error: expect.stringContaining('not sent: the host shut down first')
    })
    expect(events.filter((e) => e.event === 'turn.finished' && e.payload.turnId === q.turnId)).toHaveLength(1)
    expect(agent.starts.map((x) => x.text)).toEqual(['one', 'long'])
  })

  it('shutdown stops a turn still starting, and no turn begins after it', async () => {
    let open!: () => void
    const gate: { p: Promise<void> | null } = { p: new Promise<void>((r) => (open = r)) }
    const { gateway } = setup({ buildGate: gate })
    const started = gateway.start({ profile: 'default', text: 'x' })
    await new Promise((r) => setTimeout(r, 20))
    const down = gateway.shutdown()
    gate.p = null
    open()
    const h = await started
    expect((await gateway.finished(h.turnId))?.status).toBe('interrupted')
    await down
    await expect(gateway.start({ profile: 'default', text: 'y' })).rejects.toMatchObject({ code: 'unavailable' })
  })

  it('an agent that throws ends the turn as error with the key redacted', async () => {
    const { gateway, agents, events } = setup()
    const h = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(h.turnId)
    agents[0].failWith = 'provider said: bad key sk-default-0001'
    const h2 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'two' })
    const f = await gateway.finished(h2.turnId)
    expect(f?.status).toBe('error')
    expect(f?.error).not.toContain('sk-default-0001')
    expect(JSON.stringify(events)).not.toContain('sk-default-0001')
    // The key is free again.
    agents[0].failWith = null
    const h3 = await gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'three' })
    expect((await gateway.finished(h3.turnId))?.status).toBe('completed')
  })

  it('a build failure is an unavailable error and leaves nothing running', async () => {
    const { gateway, log, registry } = setup({ buildFails: 'cannot reach sk-default-0001 host' })
    const err = await gateway.start({ profile: 'default', text: 'x' }).catch((e) => e)
    expect(err).toBeInstanceOf(CaduceusError)
    expect(err.code).toBe('unavailable')
    expect(err.message).not.toContain('sk-default-0001')
    expect(JSON.stringify(log.records)).not.toContain('sk-default-0001')
    expect(gateway.cache.runningKeys()).toEqual([])
    expect(registry.get('default').listSessions({}).items).toEqual([])
  })

  it('a start that fails once its agent is built (the session row cannot be written) closes that agent', async () => {
    const { gateway, registry, agents } = setup()
    const store = registry.get('default') as { createSession: unknown }
    store.createSession = () => Promise.reject(new Error('disk I/O error'))
    await expect(gateway.start({ profile: 'default', text: 'x' })).rejects.toThrow(/disk I\/O error/)
    await gateway.cache.drain()
    expect(agents).toHaveLength(1)
    // hard: its memory providers and tool state would otherwise outlive it, owned by nothing
    expect(agents[0]!.calls).toEqual(['close'])
    expect(gateway.cache.size).toBe(0)
    expect(gateway.cache.runningKeys()).toEqual([])
  })

  it("a turn that fails while starting on a reused agent plans that agent's idle expiry again", async () => {
    const { gateway, registry, events } = setup()
    const h = await gateway.start({ profile: 'default', text: 'one' })
    await gateway.finished(h.turnId)
    expect(gateway.idleTimerArmed).toBe(true)
    // A re-plan while the next turn starts (another conversation's turn ending, here the sweep) skips the agent: it
    // runs. Then its user message cannot be saved and the turn ends before it ran.
    const push = events.push.bind(events)
    events.push = (...items) => {
      if (items.some((e) => e.event === 'turn.started')) gateway.sweepIdle()
      return push(...items)
    }
    const store = registry.get('default') as { appendMessage: unknown }
    store.appendMessage = () => Promise.reject(new Error('disk I/O error'))
    await expect(gateway.resume({ profile: 'default', sessionId: h.sessionId, text: 'two' })).rejects.toThrow(
      /not saved/
    )
    expect(gateway.cache.size).toBe(1)
    expect(gateway.idleTimerArmed).toBe(true)
  })

  it('a malformed config.yaml refuses the turn with a clear message', async () => {
    const { gateway, root } = setup()
    writeFileSync(join(root, 'config.yaml'), 'model: [\n')
    await expect(gateway.start({ profile: 'default', text: 'x' })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/config\.yaml is not valid YAML/)
    })
  })

  it('a listener that throws does not break the turn', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cad-gw-'))
    const registry = new StoreRegistry(root)
    const gateway = new Gateway<StoreAgent, SessionStore>({
      vault: new EnvFileVault(),
      root,
      stores: registry,
      buildAgent: (i) => new StoreAgent(i),
      emit: () => {
        throw new Error('renderer gone')
      }
    })
    cleanups.push(async () => {
      await gateway.shutdown()
      registry.closeAll()
    })
    const h = await gateway.start({ profile: 'default', text: 'x' })
    expect((await gateway.finished(h.turnId))?.status).toBe('completed')
  })

  it('the idle sweep evicts idle agents softly; shutdown closes the rest hard', async () => {
    const { gateway, agents } = setup()
    const a = await gateway.start({ profile: 'default', text: 'a' })
    const b = await gateway.start({ profile: 'default', text: 'b' })
    await Promise.all([gateway.finished(a.turnId), gateway.finished(b.turnId)])
    agents[0].lastActivityTs = Date.now() - 2 * 3600_000
    expect(gateway.sweepIdle()).toBe(1)
    await gateway.cache.drain()
    expect(agents[0].calls).toEqual(['commitMemorySession', 'releaseClients'])
    await gateway.shutdown()
    expect(agents[1].calls).toEqual(['close'])
  })

  it('the idle timer is armed only while something can expire, and sweeps on its own', async () => {
    const { gateway, events, agents } = setup({ idleTtlSeconds: 0.05 })
    expect(gateway.idleTimerArmed).toBe(false)
    const swept = new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (events.some((e) => e.event === 'gateway.changed' && e.payload.reason === 'idle')) {
          clearInterval(t)
          resolve()
        }
      }, 10)
    })
    const h = await gateway.start({ profile: 'default', text: 'a' })
    await gateway.finished(h.turnId)
    expect(gateway.idleTimerArmed).toBe(true)
    await swept
    await gateway.cache.drain()
    expect(gateway.cache.size).toBe(0)
    expect(gateway.idleTimerArmed).toBe(false)
    expect(agents[0].calls).toEqual(['commitMemorySession', 'releaseClients'])
  })
})
