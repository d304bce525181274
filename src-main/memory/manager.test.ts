// MemoryManager semantics (hermes-spec §4.2) on real temp homes and real providers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withHomeOverride } from '../scope'
import type { MemoryActivityInput } from './activity-types'
import { BuiltinMemoryProvider } from './builtin'
import { MemoryManager } from './manager'
import { captureLogs, makeHomes } from './test-fixtures/harness'
import { RecordingProvider, type Call } from './test-fixtures/recording-provider'

let logs: ReturnType<typeof captureLogs>
beforeEach(() => (logs = captureLogs()))
afterEach(() => logs.stop())

async function bound(
  home: string,
  providers: RecordingProvider[] | Array<RecordingProvider | BuiltinMemoryProvider>,
  opts: ConstructorParameters<typeof MemoryManager>[0] = {}
) {
  const m = new MemoryManager({ ...opts, log: logs.sink })
  for (const p of providers) m.addProvider(p)
  await m.initializeAll('s1', { hermesHome: home, platform: 'desk' })
  return m
}

describe('MemoryManager', () => {
  it('accepts the builtin always and only ONE external provider, with the upstream warning', () => {
    const m = new MemoryManager({ log: logs.sink })
    expect(m.addProvider(new BuiltinMemoryProvider())).toBe(true)
    expect(m.addProvider(new RecordingProvider('honcho'))).toBe(true)
    expect(m.addProvider(new RecordingProvider('mem0'))).toBe(false)
    expect(m.providers.map((p) => p.name)).toEqual(['builtin', 'honcho'])
    expect(logs.records.map((r) => r.message)).toContain(
      "Rejected memory provider 'mem0' — external provider 'honcho' is already registered. Only one external memory provider is allowed at a time. Configure which one via memory.provider in config.yaml."
    )
  })

  it('refuses core tool names, keeps the first owner of a duplicate, and rejects a provider whose schemas throw', () => {
    const m = new MemoryManager({ log: logs.sink })
    m.addProvider(new BuiltinMemoryProvider())
    expect(m.addProvider(new RecordingProvider('ext', ['terminal', 'memory', 'ext_recall']))).toBe(true)
    expect(m.getToolSchemas().map((s) => s.name)).toEqual(['memory', 'ext_recall'])
    expect(m.hasTool('terminal')).toBe(false)
    const broken = new RecordingProvider('broken')
    broken.fail.add('get_tool_schemas')
    const m2 = new MemoryManager({ log: logs.sink })
    expect(m2.addProvider(broken)).toBe(false)
    expect(m2.providers).toEqual([])
  })

  it('injects the scope home into initialize when none is given', async () => {
    const { alpha } = makeHomes()
    const p = new RecordingProvider('ext')
    const m = new MemoryManager({ log: logs.sink })
    m.addProvider(p)
    await withHomeOverride(alpha, () => m.initializeAll('s1', { platform: 'desk' }))
    expect(p.home).toBe(alpha)
    expect(m.boundHome).toBe(alpha)
  })

  it('joins non-empty system prompt blocks with a blank line', async () => {
    const { alpha } = makeHomes()
    const m = await bound(alpha, [new RecordingProvider('builtin'), new RecordingProvider('empty')])
    expect(await m.buildSystemPrompt()).toBe('[builtin block]')
    const m2 = await bound(alpha, [new RecordingProvider('builtin'), new RecordingProvider('ext')])
    expect(await m2.buildSystemPrompt()).toBe('[builtin block]\n\n[ext block]')
  })

  it('prefetch: bounds a slow provider by the timeout and skips it while its previous prefetch still runs', async () => {
    const { alpha } = makeHomes()
    const builtin = new RecordingProvider('builtin')
    builtin.prefetchResult = 'from builtin'
    const slow = new RecordingProvider('slow')
    let release!: (v: string) => void
    slow.prefetchResult = () => new Promise<string>((r) => (release = r))
    const m = await bound(alpha, [builtin, slow], { prefetchTimeoutMs: 30 })
    expect(await m.prefetchAll('what did we decide')).toBe('from builtin')
    expect(await m.prefetchAll('again')).toBe('from builtin')
    expect(slow.calls.filter((c) => c[1] === 'prefetch')).toHaveLength(1) // second one skipped
    expect(logs.records.some((r) => r.message.startsWith("Memory provider 'slow' prefetch: timed out"))).toBe(true)
    release('late')
    await new Promise((r) => setImmediate(r))
    slow.prefetchResult = 'slow answer'
    expect(await m.prefetchAll('third')).toBe('from builtin\n\nslow answer')
    expect(await m.prefetchAll('   ')).toBe('')
  })

  it('redacts secrets before a query or a synced turn leaves the process', async () => {
    const { alpha } = makeHomes()
    const p = new RecordingProvider('ext')
    const m = await bound(alpha, [p])
    await m.prefetchAll('my key is sk-abcdefghijklmnopqrstu')
    m.syncAll('OPENAI_API_KEY=sk-zzzzzzzzzzzzzzzzzz', 'ok')
    expect(await m.flushPending()).toBe(true)
    expect(JSON.stringify(p.calls)).not.toMatch(/sk-[a-z]{10}/)
  })

  it('runs background work on ONE serialized queue in submission order; flushPending reports a timeout', async () => {
    const { alpha } = makeHomes()
    const order: Call[] = []
    const p = new RecordingProvider('ext', [], order)
    let open!: () => void
    p.syncGate = new Promise<void>((r) => (open = r))
    const m = await bound(alpha, [p])
    order.length = 0
    m.syncAll('u1', 'a1')
    m.queuePrefetchAll('q')
    m.commitSessionBoundaryAsync([], { newSessionId: 's2', parentSessionId: 's1' })
    expect(m.pendingBackground).toBe(3)
    expect(await m.flushPending(20)).toBe(false)
    open()
    expect(await m.flushPending(5_000)).toBe(true)
    expect(order.map((c) => c[1])).toEqual(['sync_turn', 'on_session_end', 'on_session_switch'])
    expect(order[2]).toEqual([
      'ext',
      'on_session_switch',
      's2',
      { parentSessionId: 's1', reset: true, reason: 'new_session' }
    ])
  })

  it('mirrors memory writes to external providers only, including committed builtin tool writes', async () => {
    const { alpha } = makeHomes()
    const ext = new RecordingProvider('ext')
    const m = new MemoryManager({ log: logs.sink })
    m.addProvider(new BuiltinMemoryProvider())
    m.addProvider(ext)
    await m.initializeAll('s1', { hermesHome: alpha, platform: 'desk' })
    await m.onMemoryWrite('add', 'user', 'likes tea')
    const out = JSON.parse(
      await withHomeOverride(alpha, () =>
        m.handleToolCall('memory', { action: 'add', target: 'memory', content: 'repo uses pnpm' })
      )
    )
    expect(out.success).toBe(true)
    await withHomeOverride(alpha, () =>
      m.handleToolCall('memory', { action: 'remove', target: 'memory', old_text: 'nothing like this' })
    )
    expect(ext.calls.filter((c) => c[1] === 'on_memory_write')).toEqual([
      ['ext', 'on_memory_write', 'add', 'user', 'likes tea'],
      ['ext', 'on_memory_write', 'add', 'memory', 'repo uses pnpm']
    ])
  })

  it('pre-compress: v2 providers get requireCheckpoint; a required checkpoint fails closed', async () => {
    const { alpha } = makeHomes()
    const v1 = new RecordingProvider('builtin')
    const v2 = new RecordingProvider('ext')
    v2.preCompressCheckpointApiVersion = 2
    const m = await bound(alpha, [v1, v2])
    expect(await m.onPreCompress([], { requireCheckpoint: true })).toBe('builtin checkpoint\n\next checkpoint')
    expect(v1.calls.find((c) => c[1] === 'on_pre_compress')).toEqual(['builtin', 'on_pre_compress', undefined])
    expect(v2.calls.find((c) => c[1] === 'on_pre_compress')).toEqual([
      'ext',
      'on_pre_compress',
      { requireCheckpoint: true }
    ])
    v2.fail.add('on_pre_compress')
    await expect(m.onPreCompress([], { requireCheckpoint: true })).rejects.toThrow('on_pre_compress exploded')
    expect(await m.onPreCompress([])).toBe('builtin checkpoint') // not required: failure swallowed
    const onlyV1 = await bound(alpha, [new RecordingProvider('builtin')])
    await expect(onlyV1.onPreCompress([], { requireCheckpoint: true })).rejects.toThrow(
      'No active memory provider completed pre-compress checkpoint API v2'
    )
  })

  it('an external hook that never settles is bounded: reported, left out, and a required checkpoint fails closed', async () => {
    const { alpha } = makeHomes()
    const events: MemoryActivityInput[] = []
    const stuck = new RecordingProvider('ext')
    stuck.preCompressCheckpointApiVersion = 2
    // A JS plugin's hooks may return promises (the manager awaits every hook); these never settle.
    const never = () => new Promise<never>(() => undefined)
    Object.assign(stuck, { onPreCompress: never, onTurnStart: never, systemPromptBlock: never })
    const m = await bound(alpha, [new RecordingProvider('builtin'), stuck], {
      hookTimeoutMs: 50,
      activity: { record: (e) => void events.push(e) }
    })
    await expect(m.onPreCompress([], { requireCheckpoint: true })).rejects.toThrow('timed out after 50 ms')
    expect(await m.onPreCompress([])).toBe('builtin checkpoint')
    await m.onTurnStart(1, 'hi')
    expect(await m.buildSystemPrompt()).toBe(await new RecordingProvider('builtin').systemPromptBlock())
    const failed = events.filter((e) => e.kind === 'error').map((e) => [e.provider, e.name, e.summary])
    expect(failed).toEqual([
      ['ext', 'on_pre_compress', 'timed out after 50 ms'],
      // the first call is still running: the second is not made
      ['ext', 'on_pre_compress', 'skipped: the previous on_pre_compress call timed out and is still running'],
      ['ext', 'on_turn_start', 'timed out after 50 ms'],
      ['ext', 'system_prompt', 'timed out after 50 ms']
    ])
  })

  it('a provider that always hangs holds one unfinished call per hook, not one more per turn', async () => {
    const { alpha } = makeHomes()
    const events: MemoryActivityInput[] = []
    const hangs = new RecordingProvider('ext')
    let started = 0
    let release: () => void = () => undefined
    const gate = new Promise<void>((r) => (release = r))
    Object.assign(hangs, {
      onTurnStart: () => {
        started++
        return gate
      }
    })
    const m = await bound(alpha, [hangs], { hookTimeoutMs: 20, activity: { record: (e) => void events.push(e) } })
    for (let turn = 1; turn <= 5; turn++) await m.onTurnStart(turn, 'hi')
    expect(started).toBe(1)
    expect(events.filter((e) => e.name === 'on_turn_start').map((e) => [e.ok, e.summary])).toEqual([
      [false, 'timed out after 20 ms'],
      ...Array.from({ length: 4 }, () => [
        false,
        'skipped: the previous on_turn_start call timed out and is still running'
      ])
    ])
    // once the hung call settles, the hook is called again
    release()
    await gate
    await new Promise((r) => setImmediate(r))
    await m.onTurnStart(6, 'hi')
    expect(started).toBe(2)
  })

  it('an initialize that times out gives the instance back: another profile can then use it', async () => {
    const { alpha, beta } = makeHomes()
    const p = new RecordingProvider('ext')
    let calls = 0
    const initialize = p.initialize.bind(p)
    Object.assign(p, {
      initialize: (...args: Parameters<typeof initialize>) =>
        ++calls === 1 ? new Promise<never>(() => undefined) : initialize(...args)
    })
    const first = new MemoryManager({ log: logs.sink, hookTimeoutMs: 20 })
    first.addProvider(p)
    expect(await first.initializeAll('s1', { hermesHome: alpha, platform: 'desk' })).toEqual({
      refused: [],
      timedOut: ['ext']
    })
    expect(first.providers).toEqual([])
    const second = new MemoryManager({ log: logs.sink, hookTimeoutMs: 20 })
    second.addProvider(p)
    expect(await second.initializeAll('s2', { hermesHome: beta, platform: 'desk' })).toEqual({
      refused: [],
      timedOut: []
    })
    expect(second.providers.map((x) => x.name)).toEqual(['ext'])
  })

  it('logs and swallows provider failures (keys redacted); a failing tool returns an error result', async () => {
    const { alpha } = makeHomes()
    const p = new RecordingProvider('ext', ['ext_tool'])
    p.fail.add('on_session_end').add('tool')
    const m = await bound(alpha, [p])
    await expect(m.onSessionEnd([])).resolves.toBeUndefined()
    const result = JSON.parse(await m.handleToolCall('ext_tool', {}))
    expect(result.error).toContain("Memory tool 'ext_tool' failed")
    const messages = logs.records.map((r) => r.message).join('\n')
    expect(messages).toContain("Memory provider 'ext' on_session_end: on_session_end exploded")
    expect(messages).not.toContain('sk-abcdefghijklmnop1234')
    expect(JSON.parse(await m.handleToolCall('nope', {})).error).toContain("No memory provider handles tool 'nope'")
  })

  it('shutdownAll drains the queue, then shuts providers down in reverse order', async () => {
    const { alpha } = makeHomes()
    const order: Call[] = []
    const a = new RecordingProvider('builtin', [], order)
    const b = new RecordingProvider('ext', [], order)
    b.fail.add('shutdown')
    const m = await bound(alpha, [a, b])
    m.syncAll('u', 'a')
    const report = await m.shutdownAll()
    expect(report).toEqual({ drain: 'drained', abandoned: 0 })
    expect(order.map((c) => `${c[0]}.${c[1]}`).slice(-4)).toEqual([
      'builtin.sync_turn',
      'ext.sync_turn',
      'ext.shutdown',
      'builtin.shutdown'
    ])
    expect(await (await bound(alpha, [new RecordingProvider('x')])).shutdownAll()).toEqual({
      drain: 'not_started',
      abandoned: 0
    })
  })

  it('shutdownAll gives up on a stuck queue after the drain timeout and counts the abandoned work', async () => {
    const { alpha } = makeHomes()
    const p = new RecordingProvider('ext')
    p.syncGate = new Promise<void>(() => {})
    const m = await bound(alpha, [p], { drainTimeoutMs: 20 })
    m.syncAll('u', 'a')
    m.syncAll('u2', 'a2')
    expect(await m.shutdownAll()).toEqual({ drain: 'timed_out', abandoned: 2 })
    expect(p.calls.at(-1)?.[1]).toBe('shutdown')
  })

  it('reports every event to its activity sink, and a throwing sink never breaks a hook', async () => {
    const { alpha, beta } = makeHomes()
    const seen: MemoryActivityInput[] = []
    const p = new RecordingProvider('ext', ['ext_tool'])
    const m = await bound(alpha, [p], { activity: { record: (e) => void seen.push(e) } })
    await withHomeOverride(alpha, () => m.handleToolCall('ext_tool', { q: 1 }, { turnId: 't1' }))
    await withHomeOverride(beta, () => m.onTurnStart(1, 'x'))
    expect(seen.find((e) => e.kind === 'tool_call')).toMatchObject({
      provider: 'ext',
      name: 'ext_tool',
      ok: true,
      turnId: 't1',
      sessionId: 's1'
    })
    expect(seen.find((e) => e.kind === 'refusal')).toMatchObject({ name: 'on_turn_start', ok: false })
    const loud = await bound(alpha, [new RecordingProvider('ext')], {
      activity: {
        record: () => {
          throw new Error('sink down')
        }
      }
    })
    await expect(loud.onSessionEnd([])).resolves.toBeUndefined()
  })
})
