/**
 * The resume path (ARCHITECTURE "Data flow of a resume"): resolve the session key, look up the cached
 * agent (signature + message_count guard), reuse or build, run the turn inside the profile scope and the
 * desk-chat session context, stream turn.* events, and re-baseline the guard after our own writes.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import {
  CaduceusError,
  ResumeInput,
  StartInput,
  storedPartsText,
  type ActiveTurns,
  type GatewayState,
  type ResumeResult,
  type TurnFinished,
  type TurnHandle
} from '@shared/contract'
import { busyInputMode, isDemoConfig, loadConfig, resolveRuntime } from '../config'
import { profileHome, runInProfileScope } from '../scope'
import { AgentCache, type ProfileOwner } from './agent-cache'
import { AGENT_PENDING, nowMs } from './cacheable'
import { runOnChannel, TURN_CHANNELS, type TurnChannel } from './channels'
import type {
  BuildAgentInput,
  ContentParts,
  GatewayOptions,
  GatewayStore,
  SaveNotice,
  TurnAgent,
  TurnDeltaLike,
  TurnResultLike
} from './gateway-types'
import { countOf, imageRefusal, parseInput, readRow, rewindsOf } from './turn-helpers'
import { isBusy, readRetrying } from '../store'
import { moneyFromTurn } from '@shared/contract/money'
import { IdleSweepTimer } from './idle-timer'
import { silentLogger, type Logger } from '@shared/contract/log'
import { parseSessionKey, sessionKeyFor } from './session-key'
import { newDeskSessionId } from './session-id'
import { storeProbe } from './store-probe'
import { budgetFor, TurnConfigResolver } from './turn-config'
import { withTurnOverrides } from './signature'
import { ZERO_TOKENS } from '@shared/contract/tokens'
import { memoryRebuildReason } from './rebuild-reason'
import { errorMessage } from '@shared/contract/errors'

const LOG = 'gateway.run'
const RECENT_TURNS = 256
/**
 * Upstream's cap on follow-up recursion (gateway/run.py `_MAX_INTERRUPT_DEPTH`): a message that arrives
 * while a turn at this depth runs is queued and later answered as a fresh turn (depth 0) instead.
 */
const MAX_INTERRUPT_DEPTH = 3
/** Upstream's cap on messages queued behind a busy session (gateway/run.py `_BUSY_QUEUE_MAX_PENDING`). */
const MAX_QUEUED = 32
/** A queued message cancelled before its turn began: nothing to report, the cancel already said so. */
const CANCELLED = Symbol('cancelled')
const newTurnId = () => `turn_${randomUUID().replace(/-/g, '').slice(0, 16)}`

/** What a turn that never reached the model reports. */
const nothingRan = () => ({ tokens: ZERO_TOKENS(), cost: moneyFromTurn(null), apiCalls: 0 })

const busy = () =>
  new CaduceusError('conflict', 'A turn is already running in this session; stop it or wait for it to finish.')

/**
 * The segment a session's conversation continues in now (its compression tip), or the id as given. For reads that
 * can wait (inside readRetrying): a foreign commit (rollback journal) throws, so it is retried, never answered with
 * another segment.
 */
function liveSegment(store: GatewayStore, id: string): string {
  try {
    return store.resolveResumeSessionId?.(id) ?? id
  } catch (err) {
    if (isBusy(err)) throw err // locked for a moment: not a reason to continue in another segment
    return id // gone, or unreadable: the caller's own check says so
  }
}

/**
 * liveSegment for the in-memory checks that must answer in the tick they run (which turn holds a conversation,
 * what a queued message follows): locked for a moment, the id as given, as the check before the lock saw it.
 * Throwing there would drop a queued message or a notice on a lock that lasts milliseconds.
 */
function currentSegment(store: GatewayStore, id: string): string {
  try {
    return liveSegment(store, id)
  } catch {
    return id // locked for a moment: the id as given (above)
  }
}

/** The session a turn ended in: the agent's (a compression moved it on), else the one it began on. */
const endSessionOf = (agent: TurnAgent, live: LiveTurn) =>
  typeof agent.sessionId === 'string' && agent.sessionId ? agent.sessionId : live.handle.sessionId

interface LiveTurn {
  handle: TurnHandle
  /** Final reply text, set when the turn ends. */
  reply: string
  /** The session the turn ended in (a compression rotation moves it on). */
  endSessionId?: string
  /** Start-up warnings of the agent this turn built (e.g. a memory provider left out), for channel replies. */
  warnings?: string[]
  key: string
  /** Its channel, as a session source. */
  source: string
  agent: TurnAgent | null
  controller: AbortController
  done: Promise<TurnFinished>
}

interface BeginOptions {
  isNew?: boolean
  /** The id a queued message was given when it was accepted (its turn.queued); a fresh one otherwise. */
  turnId?: string
  /** 0 for a fresh turn; n + 1 for a message that waited on a depth-n turn (upstream's interrupt depth). */
  interruptDepth?: number
  /** A message the user sent while a turn ran (queued, or interrupting): a later interrupting message lets it run. */
  sentWhileBusy?: boolean
  savedMessageId?: number
  /** The caller took this key's slot itself (deliverSaved) and hands it to this turn: no gap for another to begin. */
  holding?: boolean
  channel?: TurnChannel
  history?: BuildAgentInput['history']
  /** What the model reads before the message in place of the stored transcript (ChannelTurnInput.callerHistory). */
  transcript?: BuildAgentInput['history']
  prelude?: ChannelTurnInput['prelude']
  onDelta?: (d: TurnDeltaLike) => void
  model?: string
  provider?: string
  baseUrl?: string
  ephemeralPrompt?: string
  toolsets?: string[]
  cwd?: string
  parts?: ContentParts
  memoryKey?: string
}

export interface ChannelTurnInput {
  profile: string
  channel: TurnChannel
  text: string
  /** Continue (or name) this session; a fresh id when absent. */
  sessionId?: string
  history?: BuildAgentInput['history']
  /**
   * `history` is the conversation the model reads before `text` even when the session is stored, as upstream's API
   * server runs a chat UI's request (its messages are the conversation); the session stores only what the turn adds.
   * Without it a stored session's own transcript is read and `history` only seeds a new one.
   */
  callerHistory?: boolean
  /**
   * Messages the caller sent before `text` that the stored session does not hold yet (a chained Responses request's
   * earlier input items): stored just before the user message, so the model reads them after the session's
   * transcript, as upstream appends them to the chained history.
   */
  prelude?: Array<{ role: 'user' | 'assistant'; content: string }>
  onDelta?: (d: TurnDeltaLike) => void
  /** Run this model instead of the profile's (`run -z --model`, a cron job's `model`). */
  model?: string
  /** A cron job's own provider / endpoint instead of the profile's (its key comes from the profile's secrets). */
  provider?: string
  baseUrl?: string
  /** Called once the turn has started (its handle, for stop). */
  onStarted?: (handle: TurnHandle, warnings: string[]) => void
  /** The caller's system text (API `system`/`developer` messages, `instructions`); never stored. */
  ephemeralPrompt?: string
  /** The user message is already stored (an API retry answering it): answer it, never save it twice. */
  savedMessageId?: number
  /** Exactly these toolsets (a cron job's `enabled_toolsets`, mapped), within what the profile allows. */
  toolsets?: string[]
  /** The agent's working directory (a cron job's `workdir`): the terminal tool starts there. */
  cwd?: string
  /** The user message with images (API image parts); `text` is then its text. Refused when the model cannot see. */
  parts?: ContentParts
  /**
   * A stable per-conversation key the caller scopes long-term memory by, across its transcripts (the API server's
   * `X-Hermes-Session-Key`, upstream's `gateway_session_key`): handed to the memory providers the agent is built with.
   */
  memoryKey?: string
  /**
   * Once the turn is over, whatever its outcome, its session is titled (`title`, read then; skipped when the session
   * has a title or another session holds it) and ended with `endReason`, as upstream closes a cron run's session
   * (`cron_complete`).
   */
  finish?: { endReason: string; title?: () => string }
}

/** `warnings`: what the agent build told the user (desk chat shows them as notices; channels print/return them). */
export type ChannelTurnResult = TurnFinished & { reply: string; warnings: string[] }

// The cache signature hashes the API key among its inputs; what leaves the host is keyed with a per-process
// secret, so the renderer can still see "changed / unchanged" but holds nothing derived from the key alone.
const DISPLAY_SALT = randomBytes(32)
const displaySignature = (signature: string) =>
  createHmac('sha256', DISPLAY_SALT).update(signature).digest('hex').slice(0, 16)

export class Gateway<A extends TurnAgent = TurnAgent, S extends GatewayStore = GatewayStore> {
  readonly cache: AgentCache<A>
  private readonly log: Logger
  private readonly clock: () => number
  private readonly turns = new Map<string, LiveTurn>()
  /** Recently finished turns, so a caller that asks after the fact still gets the result (bounded). */
  private readonly recent = new Map<string, TurnFinished>()
  /**
   * Keys with a turn starting or running → that turn's interrupt depth, the session it began on (a compression
   * mid-turn moves the conversation on, not the key) and its channel (only a desk-chat turn is the desk's to stop).
   */
  private readonly busy = new Map<
    string,
    { depth: number; profile: string; sid: string; channel: TurnChannel; sentWhileBusy: boolean }
  >()
  /** Set by shutdown(): no turn begins after it. */
  private closed = false
  /** Keys whose turn was asked to stop before it was registered (it stops as soon as it is); cleared on release. */
  private readonly stopRequested = new Set<string>()
  /** Turns announced (turn.started) but not yet registered: a Stop in that window is remembered by key. */
  private readonly starting = new Map<string, string>()
  private readonly idleWaiters = new Map<string, Array<() => void>>()
  /**
   * Messages waiting for their conversation's turn to end (busy input mode `queue`), by reserved turn id, until their
   * own turn starts; Stop takes one out (cancelled), and its turn then never starts.
   */
  private readonly queued = new Map<
    string,
    { profile: string; tip: () => string; handle: TurnHandle; text: string; note?: string }
  >()
  private readonly sweeper: IdleSweepTimer
  private readonly turnConfig: TurnConfigResolver

  constructor(private readonly opts: GatewayOptions<A, S>) {
    this.log = opts.log ?? silentLogger
    this.clock = opts.clock ?? nowMs
    this.cache = new AgentCache<A>({
      cap: opts.cap,
      idleTtlSeconds: opts.idleTtlSeconds,
      log: this.log,
      clock: this.clock,
      probe: storeProbe(opts.stores),
      onChange: (reason) => this.safeEmit('gateway.changed', { reason })
    })
    this.sweeper = new IdleSweepTimer(this.cache, this.clock)
    this.turnConfig = new TurnConfigResolver({
      vault: opts.vault,
      memoryIdentity: opts.memoryIdentity,
      registryGeneration: opts.registryGeneration && ((p) => opts.registryGeneration!(p)),
      enabledToolsets: opts.enabledToolsets && ((p, c) => opts.enabledToolsets!(p, c))
    })
    // The follow-up queue was made before this gateway (delegation and process notices queue into it): the gateway
    // is what runs its deliveries, from here on, including any queued while the graph was being built.
    opts.followUps?.runWith((input) => this.deliverSaved(input))
  }

  homeFor(profile: string): string {
    return this.opts.homeFor?.(profile) ?? profileHome(this.opts.root, profile)
  }

  /**
   * Continue a session with a user message. Returns once the turn has started; the reply streams as events. A
   * message sent `whileBusy` follows the profile's busy input mode (`sendWhileBusy`); without it a busy session
   * refuses the message.
   */
  async resume(input: {
    profile: string
    sessionId: string
    text: string
    whileBusy?: boolean
  }): Promise<ResumeResult> {
    const { profile, sessionId, text, whileBusy } = parseInput(ResumeInput, input)
    // Only reads, so a home another program is committing to (rollback journal) is waited out, off the loop.
    const { store, sid } = await readRetrying(() => {
      const store = this.storeFor(profile)
      const sid = liveSegment(store, sessionId)
      if (!readRow(store, sid)) throw new CaduceusError('not_found', `Unknown session: ${sessionId}`, 'sessionId')
      return { store, sid }
    })
    // A turn that compressed mid-turn still holds the key of the segment it began on, while the session now
    // resolves to the continuation: that turn is this conversation's, whatever key it holds. Looked up in the same
    // tick as begin claims the key, so two messages at once never both see the conversation free.
    const running = this.busyKeyFor(profile, sid, store)
    if (!running) return (await this.begin(profile, sid, text, store)).handle
    if (!whileBusy) throw busy()
    return this.sendWhileBusy(profile, sessionId, running, text, store)
  }

  /**
   * A message sent while the turn on `key` runs, as upstream's gateway handles one (`display.busy_input_mode`):
   * - `interrupt` (default): that turn stops and this message runs next, one level deeper (seed 001: the reused
   *   agent keeps that turn's activity clock; past MAX_INTERRUPT_DEPTH it starts fresh);
   * - `queue`: it runs as the next turn once that one ends, in arrival order;
   * - `steer`: the running agent takes it at its next step; when it cannot, it is queued.
   * As upstream does, an interrupt is queued instead while the session's subagents work (upstream's interrupt would
   * end them) or while the turn compresses the conversation,
   * and a turn another channel runs (an API request, a cron job) is never the desk's to stop or steer.
   */
  private async sendWhileBusy(
    profile: string,
    sessionId: string,
    key: string,
    text: string,
    store: S
  ): Promise<ResumeResult> {
    let mode = busyInputMode(loadConfig(this.homeFor(profile)).raw)
    let note: string | undefined
    const running = this.busy.get(key)!
    const live = [...this.turns.values()].find((t) => t.key === key)
    const sessions = [running.sid, live?.agent?.sessionId].filter((x): x is string => typeof x === 'string')
    if (running.channel !== TURN_CHANNELS.desk) {
      mode = 'queue'
      note = `A ${running.channel.capability.platform} turn is running in this session: your message runs once it ends.`
    } else if (mode === 'interrupt' && sessions.some((id) => (this.opts.activeSubagents?.(profile, id) ?? 0) > 0)) {
      mode = 'queue'
      note = 'Queued instead of interrupting: subagents of this conversation are at work.'
    } else if (mode === 'interrupt' && live?.agent?.compressing === true) {
      mode = 'queue'
      note = 'Queued instead of interrupting: the conversation is being compressed.'
    }
    if (mode === 'steer') {
      if (live && this.steerInto(live, text)) return { ...live.handle, busy: 'steered' }
      mode = 'queue'
      note = 'Queued: the running turn could not take it mid-run.'
    }
    if (mode === 'queue') return this.enqueue(profile, sessionId, text, store, note)
    // The stopped turn may have compressed into a continuation: the message goes where the session is now.
    const next = await this.whenFree(this.conversationBusy(profile, sessionId, store), true, (interruptDepth) =>
      this.begin(profile, currentSegment(store, sessionId), text, store, { interruptDepth, sentWhileBusy: true })
    )
    return { ...next.handle, busy: 'interrupted' }
  }

  private steerInto(live: LiveTurn, text: string): boolean {
    try {
      return live.agent?.steer?.(text) === true
    } catch (err) {
      this.log.warn(LOG, `steering turn ${live.handle.turnId} failed: ${errorMessage(err)}`)
      return false
    }
  }

  /**
   * Accepts a message to run once its conversation is free: it gets its turn id now (announced by turn.queued; Stop
   * with that id cancels it) and begins, one level deeper than the turn it followed, when its turn comes.
   */
  private enqueue(profile: string, sessionId: string, text: string, store: S, note?: string): ResumeResult {
    const tip = () => currentSegment(store, sessionId)
    const ahead = [...this.queued.values()].filter((q) => q.profile === profile && q.tip() === tip()).length
    if (ahead >= MAX_QUEUED)
      throw new CaduceusError('conflict', `${MAX_QUEUED} messages already wait in this session; let them run first.`)
    const handle: TurnHandle = { turnId: newTurnId(), profile, sessionId: tip() }
    this.queued.set(handle.turnId, { profile, tip, handle, text, ...(note ? { note } : {}) })
    this.safeEmit('turn.queued', { ...handle, text, position: ahead + 1, ...(note ? { note } : {}) })
    this.whenFree(this.conversationBusy(profile, sessionId, store), false, (interruptDepth) => {
      if (!this.queued.has(handle.turnId)) throw CANCELLED
      return this.begin(profile, tip(), text, store, { interruptDepth, turnId: handle.turnId, sentWhileBusy: true })
    }).catch((err: unknown) => {
      // begin reported its own failure as this turn's turn.finished
      if (err !== CANCELLED) this.log.warn(LOG, `queued turn ${handle.turnId} did not run: ${errorMessage(err)}`)
    })
    return { ...handle, busy: 'queued', ...(note ? { note } : {}) }
  }

  /** The busy key of a turn on the conversation whose current segment is `tip`, if one runs. */
  private busyKeyFor(profile: string, tip: string, store: S): string | undefined {
    for (const [key, b] of this.busy) if (b.profile === profile && currentSegment(store, b.sid) === tip) return key
    return undefined
  }

  /** What runs on a conversation now, looked up afresh each time: a turn that compressed moves it to a new key. */
  private conversationBusy(profile: string, sessionId: string, store: S) {
    return () => this.busyKeyFor(profile, currentSegment(store, sessionId), store)
  }

  /**
   * Runs `begin` once nothing runs where `running` looks (stopping what does, with `stop`), at the depth the next
   * turn takes: one below the last turn it waited for, 0 when it waited for none or that chain reached
   * MAX_INTERRUPT_DEPTH. `begin` is called in the same tick nothing was seen running (begin claims its key before
   * its first await), so a second waiter woken by the same release cannot slip in between; it waits for the next.
   */
  private async whenFree(
    running: () => string | undefined,
    stop: boolean,
    begin: (depth: number) => Promise<LiveTurn>
  ): Promise<LiveTurn> {
    let followed: number | null = null
    for (let key = running(); key !== undefined; key = running()) {
      const turn = this.busy.get(key)!
      // An interrupting message stops the turn it was sent during, and a notice woken before it; a message the user
      // sent meanwhile (queued, or interrupting before this one) keeps its turn, as upstream runs its FIFO in order.
      if (stop && (followed === null || !turn.sentWhileBusy)) this.stopKey(key)
      followed = turn.depth
      await this.whenIdle(key)
    }
    return begin(followed === null || followed >= MAX_INTERRUPT_DEPTH ? 0 : followed + 1)
  }

  /**
   * Stops the desk-chat turn on `key`, registered or still starting (then it stops as soon as it registers). A turn
   * another channel runs there (an API request, a cron job) is that channel's to end: refused, nothing stopped.
   */
  private stopKey(key: string): void {
    this.refuseOtherChannel(key)
    const running = [...this.turns.values()].filter((t) => t.key === key)
    if (running.length) for (const t of running) this.stop(t.handle.turnId)
    else this.stopRequested.add(key)
  }

  /** Start a new desk-chat session with a first message. */
  async start(input: { profile: string; text: string }): Promise<TurnHandle> {
    const { profile, text } = parseInput(StartInput, input)
    const store = await readRetrying(() => this.storeFor(profile))
    const sid = newDeskSessionId()
    return (await this.begin(profile, sid, text, store, { isNew: true })).handle
  }

  /**
   * Saves a completion notice (a background delegation's or process's) into the conversation of `sessionId` and runs
   * it as the conversation's next turn, with no turn in between.
   * - It waits until no turn runs there: a notice saved while a turn runs would land among that turn's rows, before
   *   its final reply, and upstream resuming the session would replay it mid-turn; upstream's CLI likewise delivers a
   *   completion only after the turn (its post-turn drain). Messages queued on the conversation go first: the one
   *   next in line begins in the tick the running turn ends, so a notice saved then would land inside its turn.
   * - In the tick the conversation is seen idle its turn slot is taken, and held through `save` into the notice's own
   *   turn: a message sent meanwhile finds the conversation busy and follows its busy input mode, after the notice.
   * - Like upstream's queued follow-up (gateway/run.py `_run_agent` recursing with `_interrupt_depth + 1`), a notice
   *   that waited runs one level deeper than the turn it followed, so the reused agent keeps that turn's activity
   *   clock (seed 001: the inactivity watchdog sees a chain of follow-ups as one stretch of work); past
   *   MAX_INTERRUPT_DEPTH it starts fresh.
   * `save` gets the conversation's live tip and answers the appended message, or null when there is nothing to
   * deliver (the slot is let go, no turn runs).
   */
  async deliverSaved(input: { profile: string; sessionId: string; save: SaveNotice }): Promise<TurnHandle | null> {
    const { profile } = input
    // In the caller's tick when the store answers at once: the notice then waits in line from the moment it is sent.
    let store: S
    try {
      store = this.storeFor(profile)
    } catch (err) {
      if (!isBusy(err)) throw err
      store = await readRetrying(() => this.storeFor(profile))
    }
    const claim = (interruptDepth: number) => {
      if (this.closed) throw new CaduceusError('unavailable', 'The host is shutting down.')
      const tip = currentSegment(store, input.sessionId)
      const key = sessionKeyFor(profile, tip)
      const slot = { depth: interruptDepth, profile, sid: tip, channel: TURN_CHANNELS.desk, sentWhileBusy: false }
      this.busy.set(key, slot)
      return { tip, key, slot, interruptDepth }
    }
    let held = await this.untilIdle(profile, input.sessionId, store, claim)
    try {
      // Reads may wait out another program's commit now: the slot is held, no turn of this host begins meanwhile.
      // The tip claimed was read in one tick, the id as given when that read met a lock: claim the live one then.
      for (let live = await readRetrying(() => liveSegment(store, input.sessionId)); live !== held.tip;) {
        this.release(held.key)
        held = await this.untilIdle(profile, input.sessionId, store, claim)
        live = await readRetrying(() => liveSegment(store, input.sessionId))
      }
    } catch (err) {
      if (this.busy.get(held.key) === held.slot) this.release(held.key)
      throw err
    }
    return this.saveHolding(profile, store, held, input.save)
  }

  /** deliverSaved once the conversation's slot is held: the save, then the notice's turn on the same slot. */
  private async saveHolding(
    profile: string,
    store: S,
    held: { tip: string; key: string; slot: object; interruptDepth: number },
    save: SaveNotice
  ): Promise<TurnHandle | null> {
    const { tip, key, slot, interruptDepth } = held
    try {
      const saved = await save(tip)
      if (!saved) {
        if (this.busy.get(key) === slot) this.release(key)
        return null
      }
      // The notice is this process's own write: it must not look like a foreign one (invariant 9).
      if (this.cache.rebaselineOwnAppend(key, tip, 1))
        this.log.info(LOG, `re-baselined ${key.slice(0, 64)} after delivering a notice`)
      const live = await this.begin(profile, tip, saved.text, store, {
        savedMessageId: saved.messageId,
        interruptDepth,
        holding: true
      })
      return live.handle
    } catch (err) {
      // begin lets go of a slot it took over; one it never reached (a failed save, a shutdown) is let go here
      if (this.busy.get(key) === slot) this.release(key)
      throw err
    }
  }

  /**
   * Waits until no turn runs on the conversation and no queued message waits there, then calls `then` in the tick
   * that was seen, with the depth a turn following the last one waited for takes (as whenFree counts it).
   */
  private async untilIdle<T>(profile: string, sessionId: string, store: S, then: (depth: number) => T): Promise<T> {
    const running = this.conversationBusy(profile, sessionId, store)
    const queued = () => {
      const tip = currentSegment(store, sessionId)
      return [...this.queued.values()].some((q) => q.profile === profile && q.tip() === tip)
    }
    let followed: number | null = null
    // A queued message begins within this tick's continuations; one still waiting a second later with nothing running
    // is stuck (its turn failed to begin), and no reason to hold the notice back.
    for (let stalledSince: number | null = null; ;) {
      const key = running()
      if (key !== undefined) {
        stalledSince = null
        followed = this.busy.get(key)!.depth
        await this.whenIdle(key)
      } else if (queued() && Date.now() - (stalledSince ??= Date.now()) < 1000)
        await new Promise<void>((r) => setImmediate(r))
      else return then(followed === null || followed >= MAX_INTERRUPT_DEPTH ? 0 : followed + 1)
    }
  }

  /**
   * One turn for a channel other than desk chat (API server, one-shot, cron), on the same cached agents:
   * continues `sessionId` when it is stored, otherwise starts a session with that id (or a new one) under
   * the channel's source. Resolves when the turn has ended, with its final reply.
   */
  async runChannelTurn(input: ChannelTurnInput): Promise<ChannelTurnResult> {
    const id = input.sessionId || newDeskSessionId()
    // Only reads: a rollback-journal home another process is writing or creating (concurrent `caduceus run -z`)
    // is locked for a moment, so the open and the first read are tried again instead of failing the turn.
    const { store, sid, isNew } = await readRetrying(() => {
      const store = this.storeFor(input.profile)
      const sid = liveSegment(store, id)
      return { store, sid, isNew: !readRow(store, sid) }
    })
    const live = await this.begin(input.profile, sid, input.text, store, {
      isNew,
      channel: input.channel,
      history: isNew ? input.history : undefined,
      ...(input.callerHistory ? { transcript: input.history ?? [] } : {}),
      ...(input.prelude?.length ? { prelude: input.prelude } : {}),
      onDelta: input.onDelta,
      model: input.model,
      provider: input.provider,
      baseUrl: input.baseUrl,
      ephemeralPrompt: input.ephemeralPrompt,
      memoryKey: input.memoryKey,
      savedMessageId: input.savedMessageId,
      toolsets: input.toolsets,
      cwd: input.cwd,
      parts: input.parts
    })
    input.onStarted?.(live.handle, [...(live.warnings ?? [])])
    let finished: TurnFinished | undefined
    try {
      finished = await live.done
    } finally {
      if (input.finish) await this.closeSession(store, live.endSessionId ?? finished?.sessionId ?? sid, input.finish)
    }
    // The caller continues where the conversation is now (after compression, the child session).
    return {
      ...finished,
      sessionId: live.endSessionId ?? finished.sessionId,
      reply: live.reply,
      warnings: live.warnings ?? []
    }
  }

  /** ChannelTurnInput.finish: a title that cannot land (taken, invalid) is left out; the end is what matters. */
  private async closeSession(store: S, id: string, finish: NonNullable<ChannelTurnInput['finish']>): Promise<void> {
    try {
      const title = finish.title?.()
      if (title && store.setTitle) await store.setTitle(id, title, 'derived')
    } catch (err) {
      this.log.debug(LOG, `session ${id}: its title was not set: ${errorMessage(err)}`)
    }
    try {
      await store.endSession?.(id, finish.endReason)
    } catch (err) {
      this.log.warn(LOG, `session ${id}: could not end it: ${errorMessage(err)}`)
    }
  }

  /**
   * The app's Stop: a desk-chat turn only — an API request or a cron run shown on a session page ends where it
   * began (refused). False when no turn runs with that id.
   */
  stopDeskTurn(turnId: string): boolean {
    const key = this.turns.get(turnId)?.key ?? this.starting.get(turnId)
    if (key !== undefined) this.refuseOtherChannel(key)
    return this.stop(turnId)
  }

  /** Refuses (conflict) when another channel's turn holds `key`: that channel's to end, not the desk's. */
  private refuseOtherChannel(key: string): void {
    const channel = this.busy.get(key)?.channel
    if (channel && channel !== TURN_CHANNELS.desk)
      throw new CaduceusError(
        'conflict',
        `A ${channel.capability.platform} turn is running in this session; it can only be stopped where it started.`
      )
  }

  /**
   * Interrupt a running turn (a starting one stops as it registers; a queued one is cancelled, never run); false when
   * none runs or waits with that id.
   */
  stop(turnId: string): boolean {
    const t = this.turns.get(turnId)
    const waiting = this.queued.get(turnId)
    if (waiting) {
      this.queued.delete(turnId)
      this.safeEmit('turn.finished', { ...waiting.handle, status: 'interrupted', ...nothingRan() })
      return true
    }
    if (!t) {
      const starting = this.starting.get(turnId)
      if (starting === undefined) return false
      this.stopRequested.add(starting)
      return true
    }
    try {
      t.agent?.interrupt?.('stopped by user')
    } finally {
      t.controller.abort()
    }
    return true
  }

  /** Resolves when the turn has finished (its turn.finished payload). */
  finished(turnId: string): Promise<TurnFinished> | null {
    const live = this.turns.get(turnId)
    if (live) return live.done
    const done = this.recent.get(turnId)
    return done ? Promise.resolve(done) : null
  }

  /** What runs or waits now, and how each of `known` ended if it did (a window opening or reconnecting). */
  activeTurns(known: string[] = []): ActiveTurns {
    const turns: ActiveTurns['turns'] = []
    for (const t of this.turns.values()) turns.push({ ...t.handle, status: 'running', source: t.source })
    for (const [turnId, key] of this.starting) {
      const b = this.busy.get(key)
      if (b) turns.push({ turnId, profile: b.profile, sessionId: b.sid, status: 'running', source: b.channel.source })
    }
    for (const q of this.queued.values())
      turns.push({
        ...q.handle,
        status: 'queued',
        source: TURN_CHANNELS.desk.source,
        text: q.text,
        ...(q.note ? { note: q.note } : {})
      })
    return { turns, finished: known.flatMap((id) => this.recent.get(id) ?? []) }
  }

  /** Soft-evict one cached agent; refused (false) while it runs. */
  evict(key: string): boolean {
    const e = this.cache.get(key)
    if (!e || this.busy.has(key) || (e.agent !== AGENT_PENDING && this.cache.isRunning(e.agent))) return false
    const ok = this.cache.evict(key)
    this.sweeper.schedule()
    return ok
  }

  state(): GatewayState {
    const now = this.clock()
    const agents = this.cache.entries().flatMap(([key, e]) => {
      if (e.agent === AGENT_PENDING) return []
      const ts = e.agent.lastActivityTs
      return [
        {
          key,
          profile: e.profile ?? parseSessionKey(key)?.profile ?? 'default',
          sessionId: e.snapshot.sessionId,
          model: e.model,
          signature: displaySignature(e.signature),
          running: this.cache.isRunning(e.agent),
          idleSeconds: typeof ts === 'number' ? Math.max(0, (now - ts) / 1000) : 0,
          turns: e.turns,
          messageCountSnapshot: e.snapshot.messageCount
        }
      ]
    })
    return { agents, cap: this.cache.cap, idleTtlSeconds: this.cache.idleTtlSeconds }
  }

  /** Whether an idle-sweep timer is pending (none while nothing can expire: idle costs nothing). */
  get idleTimerArmed(): boolean {
    return this.sweeper.armed
  }

  /** Run the idle sweep now (housekeeping, tests); the timer does this on its own. */
  sweepIdle(): number {
    const n = this.cache.sweepIdle()
    this.sweeper.schedule()
    return n
  }

  /** App shutdown: stop turns, then hard-close every cached agent (a true boundary). */
  async shutdown(): Promise<void> {
    this.closed = true
    this.sweeper.stop()
    // messages still queued will not run: each says so now (their waiters then find them gone)
    for (const q of [...this.queued.values()])
      this.queuedFailed(q.handle.turnId, q.profile, q.handle.sessionId, new Error('the host shut down first'))
    // a turn still starting (its agent being built) stops as soon as it registers, instead of running on
    for (const key of this.busy.keys()) this.stopRequested.add(key)
    for (const id of [...this.turns.keys()]) this.stop(id)
    await Promise.allSettled([...this.turns.values()].map((t) => t.done))
    for (const key of this.cache.keys()) this.cache.expire(key)
    await this.cache.drain()
  }

  // ── the turn ───────────────────────────────────────────────────────────────

  private async begin(
    profile: string,
    sid: string,
    text: string,
    store: S,
    opts: BeginOptions = {}
  ): Promise<LiveTurn> {
    const { isNew = false, savedMessageId } = opts
    const channel = opts.channel ?? TURN_CHANNELS.desk
    const key = sessionKeyFor(profile, sid)
    if (this.closed || (this.busy.has(key) && !opts.holding)) {
      const err = this.closed ? new CaduceusError('unavailable', 'The host is shutting down.') : busy()
      this.queuedFailed(opts.turnId, profile, sid, err)
      throw err
    }
    const sentWhileBusy = opts.sentWhileBusy === true
    this.busy.set(key, { depth: opts.interruptDepth ?? 0, profile, sid, channel, sentWhileBusy })
    let turnId: string | null = null
    // Built for this turn but not yet in the cache: a failure before the insert must close it (it owns memory
    // providers and tool state that nothing else would ever release).
    let unowned: { agent: A; owner: ProfileOwner } | null = null
    try {
      const home = this.homeFor(profile)
      await this.opts.memoryIdentity?.prepare?.(profile, home)
      const resolved = this.turnConfig.resolve(profile, home)
      const { secrets, config, reasoningConfig } = resolved
      const budget = budgetFor(resolved.budgets, channel.source)
      const maxIterations = budget.max
      const ephemeralPrompt = opts.ephemeralPrompt?.trim() ?? ''
      const override = { provider: opts.provider?.trim() || null, baseUrl: opts.baseUrl?.trim() || null }
      const overridden = Boolean(override.provider || override.baseUrl)
      const runtime = overridden
        ? resolveRuntime(home, { vault: this.opts.vault, secrets, override })
        : resolved.runtime
      // What this turn brings on top of the profile is part of the signature: different inputs, different agent.
      const signature = withTurnOverrides(resolved.signature, {
        ephemeralPrompt,
        memoryKey: opts.memoryKey,
        model: opts.model,
        toolsets: opts.toolsets ? JSON.stringify(opts.toolsets) : undefined,
        cwd: opts.cwd,
        ...override,
        runtime: overridden ? runtime : null
      })
      if (runtime.configError) throw new CaduceusError('unavailable', runtime.configError.message)
      const noImages = opts.parts?.some((p) => p.type === 'image_url')
        ? imageRefusal(runtime, config, opts.model)
        : null
      if (noImages) throw new CaduceusError('invalid_input', noImages)
      const owner: ProfileOwner = { home, secrets }
      const depth = opts.interruptDepth ?? 0
      let { decision, agent } = this.cache.lookup(key, {
        signature,
        sessionId: sid,
        maxIterations,
        interruptDepth: depth
      })
      const cacheReason =
        decision === 'config_changed'
          ? memoryRebuildReason(this.cache.get(key)?.memoryInputs, resolved.memoryInputs, {
              secrets: Object.values(secrets),
              mask: this.opts.vault.mask
            })
          : undefined
      if (!agent) {
        // The memoized runtime is shared between turns: the agent gets its own copy.
        const own = { ...runtime, model: opts.model || runtime.model, capabilities: { ...runtime.capabilities } }
        agent = await this.build(
          {
            profile,
            home,
            sessionId: sid,
            sessionKey: key,
            runtime: own,
            config,
            maxIterations,
            reasoningConfig,
            store,
            channel,
            ...(opts.history?.length ? { history: opts.history } : {}),
            ...(opts.toolsets ? { toolsets: opts.toolsets } : {}),
            ...(opts.cwd ? { cwd: opts.cwd } : {}),
            ...(ephemeralPrompt ? { ephemeralPrompt } : {}),
            ...(opts.memoryKey ? { memoryKey: opts.memoryKey } : {})
          },
          key
        )
        unowned = { agent, owner }
        // Only once an agent exists: a failed start leaves no empty session behind.
        if (isNew)
          await store.createSession?.(sid, channel.source, {
            model: own.model,
            modelConfig: agent.sessionModelConfig?.() ?? null,
            profileName: profile,
            // No routing key on the row, as upstream's own desktop, api_server, cli and cron rows have none: upstream
            // reads a keyed row that has not ended as a live messaging-gateway conversation (`hermes status`' count,
            // list_gateway_sessions), and a desk chat never ends. The key lives in the cache and the session context.
            sessionKey: null,
            // the folder the turn works in (a one-shot's, as upstream's `-z` records it; a cron job's workdir)
            ...(opts.cwd ? { cwd: opts.cwd } : {})
          })
        // The guard's baseline: read just after our own write, when another program may be committing too.
        const row = await readRetrying(() => readRow(store, sid))
        this.cache.insert(key, agent, signature, {
          messageCount: countOf(row),
          rewindCount: rewindsOf(row),
          sessionId: sid,
          profile,
          model: own.model,
          owner,
          memoryInputs: resolved.memoryInputs
        })
        unowned = null
        this.cache.noteTurn(key)
        // a budget value left out is said once, on the new agent's first turn, with its other warnings
        if (budget.warning) agent.startupNotices?.push(budget.warning)
      }
      // A queued message leaves the queue as its turn starts; Stop took it out while its agent was being prepared.
      if (opts.turnId !== undefined && !this.queued.delete(opts.turnId)) throw CANCELLED
      // Reasoning is set per turn on the warm agent: changing it never costs a rebuild.
      if ('reasoningConfig' in agent) agent.reasoningConfig = reasoningConfig
      this.cache.markRunning(key, agent)
      const handle: TurnHandle = { turnId: opts.turnId ?? newTurnId(), profile, sessionId: sid }
      turnId = handle.turnId
      this.starting.set(turnId, key)
      this.safeEmit('turn.started', {
        ...handle,
        cache: decision,
        ...(cacheReason ? { cacheReason } : {}),
        model: runtime.model,
        demo: runtime.provider === 'demo' || isDemoConfig(config),
        source: channel.source
      })
      // Warnings from building the agent (e.g. a refused memory provider) reach the user once, on its first turn.
      const warnings = agent.startupNotices?.splice(0) ?? []
      for (const text of warnings) this.safeEmit('turn.delta', { ...handle, kind: 'notice', text })
      this.log.info(
        LOG,
        `turn ${handle.turnId} on ${key.slice(0, 64)}: cache ${decision}${cacheReason ? ` (${cacheReason})` : ''}`
      )
      // Stored as upstream's agent flush stores a message with images: its text, each image as "[screenshot]".
      // The images themselves go to the provider with this turn only.
      const stored = opts.parts ? (storedPartsText(opts.parts) ?? text) : text
      if (savedMessageId === undefined)
        for (const m of opts.prelude ?? []) await this.saveUserMessage(store, agent, handle, m.content, m.role)
      const saved = savedMessageId ?? (await this.saveUserMessage(store, agent, handle, stored))
      const controller = new AbortController()
      const live: LiveTurn = {
        handle,
        reply: '',
        key,
        source: channel.source,
        agent,
        controller,
        done: Promise.resolve(null as never),
        warnings
      }
      this.turns.set(handle.turnId, live)
      this.starting.delete(handle.turnId)
      live.done = this.run(live, agent, text, owner, Object.values(secrets), channel, {
        savedMessageId: saved,
        onDelta: opts.onDelta,
        parts: opts.parts,
        transcript: opts.transcript,
        prelude: savedMessageId === undefined ? opts.prelude : undefined
      })
      // Stopped while it was starting (Stop, or a message sent to interrupt it): it ends now, interrupted.
      if (this.stopRequested.delete(key)) this.stop(handle.turnId)
      return live
    } catch (err) {
      if (turnId) this.starting.delete(turnId)
      else if (err !== CANCELLED) this.queuedFailed(opts.turnId, profile, sid, err)
      this.cache.markIdle(key)
      if (unowned) this.cache.releaseDetached(key, unowned, 'hard')
      this.release(key)
      // A reused agent was marked running (a re-plan meanwhile skipped it): idle again, its expiry is planned anew.
      this.sweeper.schedule()
      throw err
    }
  }

  /** A queued message's sender no longer waits on a request: its turn says it did not run (and leaves the queue). */
  private queuedFailed(turnId: string | undefined, profile: string, sessionId: string, err: unknown): void {
    if (turnId === undefined) return
    this.queued.delete(turnId)
    this.safeEmit('turn.finished', {
      turnId,
      profile,
      sessionId,
      status: 'error',
      error: `Your queued message was not sent: ${errorMessage(err)}`,
      ...nothingRan()
    })
  }

  /**
   * The user's message is committed before the request answers: a kill right after `sessions.resume`
   * returns loses nothing. If the DB stays locked past the store's retry budget, the turn ends with that
   * error (event) and the request fails, so the renderer keeps the text in the composer.
   */
  private async saveUserMessage(
    store: S,
    agent: A,
    handle: TurnHandle,
    text: string,
    role: 'user' | 'assistant' = 'user'
  ): Promise<number | undefined> {
    if (!store.appendMessage) return undefined
    const sid = typeof agent.sessionId === 'string' && agent.sessionId ? agent.sessionId : handle.sessionId
    try {
      const id = await store.appendMessage(sid, { role, content: text })
      return typeof id === 'number' ? id : undefined
    } catch (err) {
      const message = `Your message was not saved: ${errorMessage(err)}`
      this.log.warn(LOG, `turn ${handle.turnId}: ${message}`)
      this.safeEmit('turn.finished', { ...handle, status: 'error', error: message, ...nothingRan() })
      throw err instanceof CaduceusError
        ? new CaduceusError(err.code, message, err.field)
        : new CaduceusError('unavailable', message)
    }
  }

  private async build(input: BuildAgentInput<S>, key: string): Promise<A> {
    this.cache.markRunning(key, AGENT_PENDING)
    try {
      return await this.opts.buildAgent(input)
    } catch (err) {
      const msg = this.opts.vault.mask.redactValues(errorMessage(err), [input.runtime.apiKey])
      this.log.warn(LOG, `building the agent for ${key.slice(0, 64)} failed: ${msg}`)
      throw err instanceof CaduceusError ? err : new CaduceusError('unavailable', `Could not start the agent: ${msg}`)
    }
  }

  private async run(
    live: LiveTurn,
    agent: A,
    text: string,
    owner: ProfileOwner,
    secretValues: string[],
    channel: TurnChannel,
    {
      savedMessageId,
      onDelta,
      parts,
      transcript,
      prelude
    }: Pick<BeginOptions, 'savedMessageId' | 'onDelta' | 'parts' | 'transcript' | 'prelude'>
  ): Promise<TurnFinished> {
    const { handle, key } = live
    let result: TurnResultLike | null = null
    let failure: string | undefined
    try {
      result = await runInProfileScope(owner.home, owner.secrets, () =>
        // The channel's binding lives in this turn's own context only: it ends with the turn (seed 003).
        runOnChannel(channel, { sessionId: handle.sessionId, sessionKey: key, profile: handle.profile }, () =>
          agent.runTurn(text, {
            signal: live.controller.signal,
            turnId: handle.turnId,
            ...(savedMessageId !== undefined ? { savedUserMessageId: savedMessageId } : {}),
            ...(parts ? { parts } : {}),
            ...(transcript ? { history: transcript } : {}),
            ...(prelude?.length ? { prelude } : {}),
            onDelta: (d) => {
              this.safeEmit('turn.delta', { ...handle, ...d })
              this.safeCall(() => onDelta?.(d))
            }
          })
        )
      )
      live.reply = result?.finalText ?? ''
      if (result?.sessionId) live.endSessionId = result.sessionId
    } catch (err) {
      failure = this.opts.vault.mask.redactValues(errorMessage(err), secretValues)
      this.log.warn(LOG, `turn ${handle.turnId} failed: ${failure}`)
    } finally {
      // The cache's probe reads nothing while another program's commit blocks readers (rollback journal): wait that
      // out first, or the baseline is skipped and the next turn takes our own writes for a foreign one (a rebuild).
      await readRetrying(() => readRow(this.storeFor(handle.profile), endSessionOf(agent, live))).catch(() => null)
      this.afterTurn(live, agent, owner)
    }
    const finished: TurnFinished = {
      ...handle,
      status: result?.status ?? 'error',
      ...(failure || result?.error
        ? { error: this.opts.vault.mask.redactValues(failure ?? result?.error ?? '', secretValues) }
        : {}),
      ...(!failure && result?.partial ? { partial: true } : {}),
      tokens: result?.tokens ?? ZERO_TOKENS(),
      cost: moneyFromTurn(result),
      apiCalls: result?.apiCalls ?? 0
    }
    this.safeEmit('turn.finished', finished)
    this.turns.delete(handle.turnId)
    this.recent.set(handle.turnId, finished)
    if (this.recent.size > RECENT_TURNS) this.recent.delete(this.recent.keys().next().value!)
    return finished
  }

  /** Re-baseline BEFORE the key is free again: our own writes must never look foreign on the next lookup. */
  private afterTurn(live: LiveTurn, agent: A, owner: ProfileOwner): void {
    const { key } = live
    let cachedAt = key
    try {
      const endSid = endSessionOf(agent, live)
      const entry = this.cache.get(key)
      // Compression rotated the conversation into a child session: the snapshot follows it, and so does the entry.
      // Upstream's session key outlives a compression; ours names the segment, so the entry moves to the tip's key
      // (when nothing holds that key) and the next turn there reuses this agent: one agent, one memory commit.
      if (entry?.agent === agent && endSid !== entry.snapshot.sessionId) {
        entry.snapshot = { messageCount: null, sessionId: endSid }
        const tipKey = sessionKeyFor(live.handle.profile, endSid)
        if (!this.busy.has(tipKey) && this.cache.rekey(key, tipKey)) cachedAt = tipKey
      }
      this.cache.refreshMessageCount(cachedAt, endSid)
    } catch (err) {
      this.log.warn(LOG, `re-baseline of ${key.slice(0, 64)} failed: ${errorMessage(err)}`)
    }
    this.cache.markIdle(key)
    this.release(key)
    // Evicted (or replaced) while it ran: release it now that it is idle.
    if (this.cache.get(cachedAt)?.agent !== agent) this.cache.releaseDetached(key, { agent, owner })
    this.sweeper.schedule()
  }

  /** The key is free again: wake whoever waits to run the next turn on it. */
  private release(key: string): void {
    this.busy.delete(key)
    this.stopRequested.delete(key)
    const waiters = this.idleWaiters.get(key)
    this.idleWaiters.delete(key)
    for (const wake of waiters ?? []) wake()
  }

  private whenIdle(key: string): Promise<void> {
    return new Promise((resolve) => {
      const list = this.idleWaiters.get(key) ?? []
      list.push(resolve)
      this.idleWaiters.set(key, list)
    })
  }

  private storeFor(profile: string): S {
    let store: S | null = null
    try {
      store = this.opts.stores.get(profile)
    } catch (err) {
      if (err instanceof CaduceusError || isBusy(err)) throw err // locked: busy for a moment, the caller may retry
      throw new CaduceusError('unavailable', `Profile ${profile} could not be opened: ${errorMessage(err)}`, 'profile')
    }
    if (!store) throw new CaduceusError('not_found', `Unknown profile: ${profile}`, 'profile')
    return store
  }

  private safeCall(fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log.warn(LOG, `turn delta listener failed: ${errorMessage(err)}`)
    }
  }

  private safeEmit: GatewayOptions['emit'] = (event, payload) => {
    try {
      this.opts.emit(event, payload)
    } catch (err) {
      this.log.warn(LOG, `event ${event} listener failed: ${errorMessage(err)}`)
    }
  }
}
