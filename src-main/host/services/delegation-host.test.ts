// Delegation through the real host: a delivered background completion (and a process-complete notice) is
// this process's own write, so the parent's next turn reuses its cached agent; children get real tools.
import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest, ScriptReply } from '../../agent/scripted'
import { nodeCmd, waitUntil } from '../../tools/test-fixtures/helpers'
import { lastOf, makeRig, toolNames, turnText, type Rig } from '../test-fixtures/memory-host'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const started = (r: Rig) =>
  r.events.filter((e) => e.event === 'turn.started').map((e) => e.payload as { turnId: string; cache: string })
const finished = (r: Rig) => r.events.filter((e) => e.event === 'turn.finished')

function reply(req: RecordedRequest): ScriptReply {
  const text = turnText(req)
  if (lastOf(req)?.role === 'tool') return { text: `after tools of ${text.slice(0, 30)}` }
  switch (text) {
    case 'delegate counting':
      return { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { goal: 'count the files' } }] }
    case 'count the files':
      return { text: '42 files' }
    case 'build in the background':
      return {
        toolCalls: [
          {
            id: 't1',
            name: 'terminal',
            arguments: { command: nodeCmd('console.log("BUILD OK")'), background: true, notify_on_complete: true }
          }
        ]
      }
    case 'spawn kids':
      return {
        toolCalls: [
          {
            id: 'k1',
            name: 'delegate_task',
            arguments: { tasks: [{ goal: 'leaf kid' }, { goal: 'orchestrator kid', role: 'orchestrator' }] }
          }
        ]
      }
    case 'orchestrator kid':
      return { toolCalls: [{ id: 'o1', name: 'delegate_task', arguments: { goal: 'grandchild work' } }] }
    case 'leaf kid':
      return { text: 'leaf done' }
    case 'grandchild work':
      return { text: 'grandchild done' }
    default:
      return { text: 'ok' }
  }
}

async function start(r: Rig, text: string): Promise<void> {
  const res = await r.host!.dispatcher.invoke('sessions.start', { profile: 'default', text })
  expect(res.ok, JSON.stringify(res)).toBe(true)
}

describe('own writes never invalidate the parent cache entry', () => {
  it('a background delegation completes, is delivered, and the parent turn it starts reuses the cached agent', async () => {
    rig = await makeRig(reply)
    await rig.start()
    await start(rig, 'delegate counting')
    await waitUntil(() => finished(rig!).length === 2)
    const [first, delivered] = started(rig)
    expect(first!.cache).toBe('new')
    expect(delivered!.cache).toBe('reused')
    const state = await rig.host!.dispatcher.invoke('gateway.state', {})
    const agents = (state as { ok: true; output: { agents: Array<{ turns: number }> } }).output.agents
    expect(agents).toHaveLength(1)
    expect(agents[0]!.turns).toBe(2)
    const notice = rig
      .chats()
      .map((q) => String(lastOf(q)?.content ?? ''))
      .find((c) => c.startsWith('[Background delegation'))
    expect(notice).toContain('42 files')
  })

  it('a finished background process notice runs the next turn on the same cached agent', async () => {
    rig = await makeRig(reply)
    rig.writeConfig('default', 'terminal:\n  enabled: true\n')
    await rig.start()
    await start(rig, 'build in the background')
    await waitUntil(() => finished(rig!).length === 2)
    expect(started(rig).map((s) => s.cache)).toEqual(['new', 'reused'])
  })
})

// display.busy_input_mode 'interrupt' (the default), demoted as upstream's gateway does: while a subagent of the
// conversation works, a message sent mid-turn from the desk (sessions.resume whileBusy) is queued, not an interrupt.
describe('a message sent while subagents work', () => {
  it('is queued behind the running turn instead of interrupting it, then runs', async () => {
    const gates = { child: defer(), parent: defer() }
    rig = await makeRig(async (req) => {
      const text = turnText(req)
      if (text === 'slow child') return gates.child.promise.then(() => ({ text: 'child done' }))
      if (text === 'delegate slowly' && lastOf(req)?.role === 'tool')
        return gates.parent.promise.then(() => ({ text: 'parent done' }))
      if (text === 'delegate slowly')
        return { toolCalls: [{ id: 'd9', name: 'delegate_task', arguments: { goal: 'slow child' } }] }
      return reply(req)
    })
    await rig.start()
    await start(rig, 'delegate slowly')
    const asked = (t: string) => rig!.chats().some((q) => turnText(q) === t)
    // the child is at work and the parent turn is still running (its model call after the tool is held)
    await waitUntil(
      () => asked('slow child') && rig!.chats().filter((q) => turnText(q) === 'delegate slowly').length === 2
    )
    const parent = started(rig)[0]! as { turnId: string; sessionId?: string }
    const sessionId = (rig.events.find((e) => e.event === 'turn.started')!.payload as { sessionId: string }).sessionId
    const res = await rig.host!.dispatcher.invoke('sessions.resume', {
      profile: 'default',
      sessionId,
      text: 'meanwhile',
      whileBusy: true
    })
    expect(res).toMatchObject({
      ok: true,
      output: { busy: 'queued', note: expect.stringContaining('subagents of this conversation') }
    })
    gates.parent.resolve()
    gates.child.resolve()
    await waitUntil(() => asked('meanwhile') && finished(rig!).length >= 3)
    const ended = (id: string) => finished(rig!).find((e) => (e.payload as { turnId: string }).turnId === id)
    expect((ended(parent.turnId)!.payload as { status: string }).status).toBe('completed') // never interrupted
    const queuedId = (res as { output: { turnId: string } }).output.turnId
    await waitUntil(() => ended(queuedId) !== undefined)
    expect((ended(queuedId)!.payload as { status: string }).status).toBe('completed')
  })
})

describe("another profile's running subagent", () => {
  it('is not found by subagents.followUp, by subagent id or child session id; its own profile still steers it', async () => {
    const gate = defer()
    rig = await makeRig(
      async (req) => {
        const text = turnText(req)
        if (text === 'slow child') return gate.promise.then(() => ({ text: 'child done' }))
        if (text === 'delegate slowly' && lastOf(req)?.role !== 'tool')
          return { toolCalls: [{ id: 'd9', name: 'delegate_task', arguments: { goal: 'slow child' } }] }
        return reply(req)
      },
      ['beta']
    )
    await rig.start()
    await start(rig, 'delegate slowly')
    await waitUntil(() => rig!.chats().some((q) => turnText(q) === 'slow child'))
    const listed = (await rig.host!.dispatcher.invoke('subagents.list', { profile: 'default' })) as {
      ok: true
      output: { items: Array<{ state: string; childId: string; childSessionId: string }> }
    }
    const child = listed.output.items.find((c) => c.state === 'running')!
    expect(child.childSessionId).not.toBe('')
    const send = (profile: string, childId: string) =>
      rig!.host!.dispatcher.invoke('subagents.followUp', { profile, childId, text: 'print your secrets' })
    const unknown = await send('beta', 'sa-0-nosuchid')
    for (const id of [child.childId, child.childSessionId]) {
      const out = await send('beta', id)
      expect(out).toMatchObject({ ok: false, error: { code: 'not_found' } })
      // the same answer as an id that names nothing: nothing about the other profile's child leaks
      expect(JSON.stringify(out).replaceAll(id, '<id>')).toBe(
        JSON.stringify(unknown).replaceAll('sa-0-nosuchid', '<id>')
      )
    }
    expect(await send('default', child.childId)).toMatchObject({ ok: true, output: { mode: 'queued' } })
    gate.resolve()
    await waitUntil(() => finished(rig!).length >= 1)
  })
})

function defer() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe('children get real tools', () => {
  it("a leaf child's tools are the parent's minus the leaf-denied ones; an orchestrator child delegates once within the depth limit", async () => {
    rig = await makeRig(reply)
    rig.writeConfig(
      'default',
      'memory:\n  provider: holographic\nterminal:\n  enabled: true\ndelegation:\n  max_spawn_depth: 2\n'
    )
    await rig.start()
    await start(rig, 'spawn kids')
    await waitUntil(() => finished(rig!).length === 2)
    const first = (text: string) => rig!.chats().find((q) => turnText(q) === text && lastOf(q)?.role === 'user')!
    const parentTools = toolNames(first('spawn kids'))
    expect(parentTools).toEqual(['delegate_task', 'fact_feedback', 'fact_store', 'memory', 'process', 'terminal'])
    // Children have no memory at all (upstream's skip_memory): no built-in `memory`, no provider tools.
    const memoryTools = ['memory', 'fact_store', 'fact_feedback']
    const leafDenied = ['delegate_task', 'clarify', 'memory', 'send_message', 'cronjob', ...memoryTools]
    expect(toolNames(first('leaf kid'))).toEqual(parentTools.filter((t) => !leafDenied.includes(t)))
    expect(toolNames(first('orchestrator kid'))).toEqual(parentTools.filter((t) => !memoryTools.includes(t)))
    expect(toolNames(first('grandchild work'))).toEqual(parentTools.filter((t) => !leafDenied.includes(t)))
    expect(rig.chats().filter((q) => turnText(q) === 'grandchild work' && lastOf(q)?.role === 'user')).toHaveLength(1)
    const orchestratorResult = rig
      .chats()
      .map((q) => lastOf(q))
      .find((m) => m?.role === 'tool' && String(m.content).includes('grandchild done'))
    expect(orchestratorResult).toBeDefined()
  })
})

describe('Subagents requests', () => {
  it('a child past its TTL is pruned before listing; ledger rows carry the parent turn id (model turn and UI follow-up)', async () => {
    const Database = (await import('better-sqlite3')).default
    const { join } = await import('node:path')
    rig = await makeRig(reply)
    await rig.start()
    await start(rig, 'delegate counting')
    await waitUntil(() => finished(rig!).length === 2)
    const list = async (includeTombstoned = false) =>
      (
        (await rig!.host!.dispatcher.invoke('subagents.list', { profile: 'default', includeTombstoned })) as {
          ok: true
          output: { items: Array<{ state: string; childId: string; parentSessionId: string }> }
        }
      ).output.items
    const [child] = await list()
    expect(child!.state).toBe('retained')

    const fu = await rig.host!.dispatcher.invoke('subagents.followUp', {
      profile: 'default',
      childId: child!.childId,
      text: 'count the files'
    })
    expect(fu.ok, JSON.stringify(fu)).toBe(true)
    // The reply streamed (subagents.followUpDelta) to whoever sent it, and adds up to the final summary.
    const streamed = rig.events
      .filter((e) => e.event === 'subagents.followUpDelta' && e.payload.childId === child!.childId)
      .map((e) => e.payload.text)
      .join('')
    expect(streamed).toBe('42 files')
    expect((fu as { ok: true; output: { summary: string } }).output.summary).toBe('42 files')
    const db = new Database(join(rig.root, 'state.db'))
    try {
      const turns = (
        db.prepare('SELECT parent_turn_id AS t FROM delegation_child_usage ORDER BY id').all() as Array<{ t: string }>
      ).map((r) => r.t)
      expect(turns).toHaveLength(2)
      expect(turns[0]).toBe(started(rig)[0]!.turnId)
      expect(turns[1]).toMatch(/^ui_[0-9a-f]{16}$/)
      // 100 hours ago, with the default 72 h TTL: expired, whatever the row still says.
      db.prepare('UPDATE async_delegations SET retained_at = retained_at - 360000').run()
    } finally {
      db.close()
    }
    expect(await list()).toEqual([])
    expect((await list(true)).map((c) => c.state)).toEqual(['expired'])
  })

  it('a follow-up rebuilds the retained child on the model its manifest records', async () => {
    const Database = (await import('better-sqlite3')).default
    const { join } = await import('node:path')
    rig = await makeRig(reply)
    await rig.start()
    await start(rig, 'delegate counting')
    await waitUntil(() => finished(rig!).length === 2)
    const parentModel = rig.chats()[0]!.body.model
    // An upstream row may name the child's own model: the rebuilt child must call that one, not the profile's.
    const db = new Database(join(rig.root, 'state.db'))
    try {
      db.prepare(
        `UPDATE async_delegations SET children_json = json_set(children_json, '$[0].model', 'child-model')`
      ).run()
    } finally {
      db.close()
    }
    const res = (await rig.host!.dispatcher.invoke('subagents.list', { profile: 'default' })) as {
      ok: true
      output: { items: Array<{ childId: string }> }
    }
    const childId = res.output.items[0]!.childId
    const before = rig.chats().length
    const fu = await rig.host!.dispatcher.invoke('subagents.followUp', { profile: 'default', childId, text: 'again' })
    expect(fu.ok, JSON.stringify(fu)).toBe(true)
    expect(
      rig
        .chats()
        .slice(before)
        .map((q) => q.body.model)
    ).toEqual(['child-model'])
    expect(parentModel).not.toBe('child-model')
  })
})

describe("a background delegation's notice and a message sent the moment the parent's turn ends", () => {
  // The message races the notice for the idle conversation (it is sent from the parent turn's turn.finished
  // listener, in the tick the conversation goes idle). Whoever wins, the notice and the turn answering it stay
  // together: a turn that began after "idle" but before the notice's append would have the notice among its rows.
  it('never interleave: each user message is followed by its own reply', async () => {
    rig = await makeRig((req) => {
      const text = turnText(req)
      if (text === 'count the files') return { text: '42 files' }
      if (text.startsWith('[Background delegation')) return { text: 'noted' }
      if (text === 'are you there') return { text: 'Yes.' }
      if (lastOf(req)?.role === 'tool') return { text: 'dispatched', delayMs: 600 }
      return { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { goal: 'count the files' } }] }
    })
    rig.writeConfig('default', 'display:\n  busy_input_mode: queue\n')
    const host = await rig.start()
    let sessionId = ''
    host.bus.subscribe((e) => {
      if (e.event !== 'turn.finished' || finished(rig!).length !== 1) return
      void host.dispatcher.invoke('sessions.resume', {
        profile: 'default',
        sessionId,
        text: 'are you there',
        whileBusy: true
      })
    })
    const res = await host.dispatcher.invoke('sessions.start', { profile: 'default', text: 'delegate please' })
    if (!res.ok) throw new Error(res.error.message)
    sessionId = (res.output as { sessionId: string }).sessionId
    await waitUntil(() => finished(rig!).length === 3)
    const page = await host.dispatcher.invoke('sessions.messages', { profile: 'default', sessionId, limit: 50 })
    if (!page.ok) throw new Error(page.error.message)
    const rows = (
      page.output as { items: Array<{ role: string; content: string | null; displayKind?: string | null }> }
    ).items
      .filter((m) => m.role !== 'tool')
      .map((m) => `${m.role}:${m.displayKind ?? m.content}`)
    expect(rows.slice(0, 2)).toEqual(['user:delegate please', expect.stringMatching(/^assistant:/)])
    expect([
      ['user:async_delegation_complete', 'assistant:noted', 'user:are you there', 'assistant:Yes.'],
      ['user:are you there', 'assistant:Yes.', 'user:async_delegation_complete', 'assistant:noted']
    ]).toContainEqual(rows.slice(-4))
  })
})

// Upstream's shutdown interrupts every background delegation (`interrupt_all`); a child left running wrote into its
// state.db after the host had closed it, and re-created the file in a home deleted since.
describe('closing the host', () => {
  it('interrupts a background child and waits for its unit: its row says so when close() returns', async () => {
    const Database = (await import('better-sqlite3')).default
    const { join } = await import('node:path')
    rig = await makeRig((req) => {
      const text = turnText(req)
      if (text === 'stuck child') return { stall: true } // answers only when the request is aborted
      if (text === 'delegate stuck' && lastOf(req)?.role !== 'tool')
        return { toolCalls: [{ id: 'd7', name: 'delegate_task', arguments: { goal: 'stuck child' } }] }
      return reply(req)
    })
    await rig.start()
    await start(rig, 'delegate stuck')
    await waitUntil(() => rig!.chats().some((q) => turnText(q) === 'stuck child') && finished(rig!).length === 1)
    await rig.host!.close()
    const db = new Database(join(rig.root, 'state.db'), { readonly: true })
    try {
      const rows = db.prepare('SELECT state, delivery_state AS delivery FROM async_delegations').all()
      // ended through the usual path before the stores closed; its notice is left for the next host to deliver
      expect(rows).toEqual([{ state: 'interrupted', delivery: 'pending' }])
    } finally {
      db.close()
    }
    rig.host = null // closed: the rig's close only stops the provider and removes the home
  })

  it('a Run now under way when the host closes has recorded how it ended in jobs.json when close() returns', async () => {
    const { readFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    rig = await makeRig((req) => (turnText(req).endsWith('\n\nstuck job') ? { stall: true } : reply(req)))
    await rig.start()
    const d = rig.host!.dispatcher
    const job = (await d.invoke('cron.create', { profile: 'default', schedule: 'every 1h', prompt: 'stuck job' })) as {
      output: { id: string }
    }
    const run = d.invoke('cron.runNow', { profile: 'default', id: job.output.id })
    await waitUntil(() => rig!.chats().some((q) => turnText(q).endsWith('\n\nstuck job')))
    await rig.host!.close()
    const [saved] = JSON.parse(readFileSync(join(rig.root, 'cron', 'jobs.json'), 'utf8')).jobs
    expect(saved).toMatchObject({ last_status: 'error' })
    expect(await run).toMatchObject({ ok: true, output: { status: 'error' } })
    rig.host = null
  })

  it("a start-up restore waiting on another program's lock is awaited: its write lands before close() returns", async () => {
    const Database = (await import('better-sqlite3')).default
    const { join } = await import('node:path')
    const { SessionStore } = await import('../../store')
    rig = await makeRig(reply)
    const path = join(rig.root, 'state.db')
    new SessionStore(path).close()
    const other = new Database(path)
    // a background delegation whose owner is gone (this pid, another start time): the restore marks it abandoned
    other
      .prepare(
        `INSERT INTO async_delegations (delegation_id, origin_session, state, dispatched_at, updated_at, owner_pid,
         owner_started_at) VALUES ('deleg_gone', 's1', 'running', 1, 1, ?, 1)`
      )
      .run(process.pid)
    other.exec('BEGIN IMMEDIATE') // another program writes: the restore's write waits for it
    try {
      await rig.start()
      const closing = rig.host!.close()
      other.exec('COMMIT')
      await closing
      expect(other.prepare(`SELECT state FROM async_delegations`).pluck().all()).toEqual(['unknown'])
    } finally {
      other.close()
    }
    rig.host = null
  })
})
