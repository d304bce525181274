// Children and cron build without memory, as upstream's `skip_memory`: through a real host turn whose
// scripted model calls delegate_task, a recording JS memory plugin sees only the primary agent (context
// `primary`, the desk's platform), never the child's goal in a recall or a sync, and one on_delegation
// with the child's result; the child's request carries no memory tools and no recall.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest, ScriptReply } from '../../agent/scripted'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { lastOf, makeRig, messagesOf, toolNames, turnText, writePlugin, type Rig } from '../test-fixtures/memory-host'

const KEY = '__cadChildMemoryRec'
type Rec = { hook: string; [k: string]: unknown }
const recorded = (): Rec[] => ((globalThis as Record<string, unknown>)[KEY] as Rec[] | undefined) ?? []

const PLUGIN = `
const events = (globalThis[${JSON.stringify(KEY)}] ??= [])
export function createProvider() {
  return {
    name: 'childrec',
    isAvailable: () => true,
    initialize(sessionId, o) { events.push({ hook: 'initialize', context: o.agentContext, platform: o.platform }) },
    getToolSchemas: () => [{ name: 'childrec_note', description: 'note', parameters: { type: 'object', properties: {} } }],
    handleToolCall() { return '{}' },
    prefetch(q) { events.push({ hook: 'prefetch', query: q }); return 'CHILDREC RECALL' },
    queuePrefetch(q) { events.push({ hook: 'queue_prefetch', query: q }) },
    syncTurn(u, a) { events.push({ hook: 'sync_turn', user: u, assistant: a }) },
    onDelegation(task, result) { events.push({ hook: 'on_delegation', task, result }) },
    shutdown() {}
  }
}
`

function reply(req: RecordedRequest): ScriptReply {
  const text = turnText(req)
  if (lastOf(req)?.role === 'tool') return { text: 'delegated' }
  if (text === 'delegate counting')
    return {
      toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { goal: 'count the files', role: 'orchestrator' } }]
    }
  if (text === 'count the files') return { text: '42 files' }
  // a cron run's turn: the job's prompt after the note every cron run starts with
  if (text.endsWith('\n\nsummarise the inbox')) return { text: 'inbox summarised' }
  return { text: 'ok' }
}

const NOTE = 'Deploys go through the staging cluster first'
const ABOUT = 'Name: Ada, prefers short answers'
/** The profile's built-in store, which only a primary agent's prompt may carry. */
function writeMemory(home: string): void {
  mkdirSync(join(home, 'memories'), { recursive: true })
  writeFileSync(join(home, 'memories', 'MEMORY.md'), NOTE)
  writeFileSync(join(home, 'memories', 'USER.md'), ABOUT)
}
const systemOf = (q: RecordedRequest) => String(messagesOf(q).find((m) => m.role === 'system')?.content ?? '')

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
  delete (globalThis as Record<string, unknown>)[KEY]
})

describe('a delegated child has no memory provider', () => {
  it('no memory tools, recall or sync for the child; on_delegation reaches the parent provider', async () => {
    rig = await makeRig(reply)
    writePlugin(rig.root, 'childrec', PLUGIN)
    rig.writeConfig('default', 'memory:\n  provider: childrec\ndelegation:\n  max_spawn_depth: 2\n')
    writeMemory(rig.root)
    await rig.start()
    const res = await rig.host!.dispatcher.invoke('sessions.start', { profile: 'default', text: 'delegate counting' })
    expect(res.ok, JSON.stringify(res)).toBe(true)
    await waitUntil(() => recorded().some((e) => e.hook === 'on_delegation'))
    await waitUntil(() => rig!.events.filter((e) => e.event === 'turn.finished').length === 2)

    const opening = (text: string) => rig!.chats().find((q) => turnText(q) === text && lastOf(q)?.role === 'user')!
    const parent = opening('delegate counting')
    const child = opening('count the files')
    expect(toolNames(parent)).toEqual(expect.arrayContaining(['childrec_note', 'memory', 'delegate_task']))
    // An orchestrator child keeps delegate_task but has neither the plugin's tool nor the built-in memory.
    expect(toolNames(child)).toEqual(['delegate_task'])
    const childText = messagesOf(child)
      .map((m) => String(m.content))
      .join('\n')
    expect(childText).not.toContain('CHILDREC RECALL')
    expect(childText).not.toContain('<memory-context>')
    // Nor the built-in store's snapshot: upstream builds the child with skip_memory, so no MEMORY.md / USER.md block.
    expect(childText).not.toContain(NOTE)
    expect(childText).not.toContain(ABOUT)
    expect(systemOf(parent)).toContain(NOTE)
    expect(systemOf(parent)).toContain(ABOUT)
    expect(String(lastOf(parent)?.content)).toContain('CHILDREC RECALL')

    const events = recorded()
    expect(events.filter((e) => e.hook === 'initialize')).toEqual([
      { hook: 'initialize', context: 'primary', platform: 'desktop' }
    ])
    const touched = events.filter((e) => ['prefetch', 'queue_prefetch', 'sync_turn'].includes(e.hook))
    expect(touched.length).toBeGreaterThan(0)
    // The child's own turn (its goal as the user text) never reaches the provider; the parent's turn that
    // delivers the child's result (a notice quoting the goal) is the parent's and does.
    for (const e of touched) expect([e.query, e.user]).not.toContain('count the files')
    expect(events.filter((e) => e.hook === 'sync_turn').map((e) => e.user)).toContain('delegate counting')
    expect(events.filter((e) => e.hook === 'on_delegation')).toEqual([
      { hook: 'on_delegation', task: 'count the files', result: '42 files' }
    ])
  })
})

describe('a cron run has no memory provider', () => {
  it("Run now on the Cron page: no memory tools, recall or provider start; a named memory toolset is a warning in the run's result and on the page", async () => {
    rig = await makeRig(reply)
    writePlugin(rig.root, 'childrec', PLUGIN)
    rig.writeConfig('default', 'memory:\n  provider: childrec\n')
    writeMemory(rig.root)
    await rig.start()
    const d = rig.host!.dispatcher
    const job = (await d.invoke('cron.create', {
      profile: 'default',
      schedule: 'every 1h',
      prompt: 'summarise the inbox'
    })) as { ok: boolean; output: { id: string } }
    expect(job.ok, JSON.stringify(job)).toBe(true)
    // A job upstream's cron tool wrote may name the memory toolset: the run says it has none.
    const jobsPath = join(rig.root, 'cron', 'jobs.json')
    const file = JSON.parse(readFileSync(jobsPath, 'utf8'))
    file.jobs[0].enabled_toolsets = ['memory', 'terminal']
    writeFileSync(jobsPath, JSON.stringify(file))
    const run = (await d.invoke('cron.runNow', { profile: 'default', id: job.output.id })) as {
      ok: boolean
      output: { status: string; output: string; warnings: string[] }
    }
    expect(run.ok, JSON.stringify(run)).toBe(true)
    expect(run.output.output).toContain('inbox summarised')
    const warning = 'enabled_toolsets names memory, but cron runs have no memory (as upstream builds them)'
    expect(run.output.warnings).toEqual([warning])
    // The Cron page's row shows what the latest run warned about.
    const listed = (await d.invoke('cron.list', { profile: 'default' })) as {
      output: { jobs: Array<{ lastWarnings: string[] }> }
    }
    expect(listed.output.jobs[0]!.lastWarnings).toEqual([warning])
    const req = rig.chats().find((q) => turnText(q).endsWith('\n\nsummarise the inbox'))!
    expect(toolNames(req)).not.toEqual(expect.arrayContaining(['childrec_note']))
    expect(toolNames(req)).not.toContain('memory')
    expect(String(lastOf(req)?.content)).not.toContain('CHILDREC RECALL')
    expect(
      messagesOf(req)
        .map((m) => String(m.content))
        .join('\n')
    ).not.toContain(NOTE)
    expect(
      messagesOf(req)
        .map((m) => String(m.content))
        .join('\n')
    ).not.toContain(ABOUT)
    expect(recorded()).toEqual([])
  })
})

describe('a one-shot run tells the provider the truth about its channel', () => {
  it('run -z (the gateway call cli/run.ts makes): the provider starts as the primary agent on the cli platform', async () => {
    rig = await makeRig(reply)
    writePlugin(rig.root, 'childrec', PLUGIN)
    rig.writeConfig('default', 'memory:\n  provider: childrec\n')
    await rig.start()
    const { TURN_CHANNELS } = await import('../../gateway')
    const done = await rig.host!.gateway.runChannelTurn({
      profile: 'default',
      channel: TURN_CHANNELS.oneShot,
      text: 'one shot'
    })
    expect(done.status).toBe('completed')
    expect(recorded().filter((e) => e.hook === 'initialize')).toEqual([
      { hook: 'initialize', context: 'primary', platform: 'cli' }
    ])
  })
})
