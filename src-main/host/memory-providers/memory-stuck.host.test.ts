// A memory plugin whose calls never settle, through real host turns (scripted model server): every call into it
// is bounded by the hook timeout and reported on the Memory page / as a startup notice, the turn carries on
// without that provider's part, and Stop ends a turn that is waiting on one of its hooks at once.
import { afterEach, describe, expect, it } from 'vitest'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { makeRig, toolNames, writePlugin, type Rig } from '../test-fixtures/memory-host'

const NEVER = 'new Promise(() => {})'

/** A plugin with one tool whose listed hooks never settle (a hosted backend that never answers). */
function stuckPlugin(name: string, stuck: string[], topLevel = ''): string {
  const hook = (h: string, ok: string) => `${h}() { return ${stuck.includes(h) ? NEVER : ok} },`
  return `${topLevel}
export function createProvider() {
  return {
    name: '${name}',
    isAvailable: () => true,
    getToolSchemas: () => [{ name: '${name}_recall', description: 'recall', parameters: { type: 'object', properties: {} } }],
    handleToolCall: () => '{}',
    ${hook('initialize', 'undefined')}
    ${hook('systemPromptBlock', "'STUCK PLUGIN BLOCK'")}
    ${hook('onTurnStart', 'undefined')}
    ${hook('prefetch', "''")}
    ${hook('syncTurn', 'undefined')}
    queuePrefetch() {},
  }
}
`
}

const finished = (r: Rig) => r.events.filter((e) => e.event === 'turn.finished')
const notices = (r: Rig) =>
  r.events.filter((e) => e.event === 'turn.delta' && e.payload.kind === 'notice').map((e) => String(e.payload.text))

async function start(r: Rig, text: string): Promise<string> {
  const res = await r.host!.dispatcher.invoke('sessions.start', { profile: 'default', text })
  expect(res.ok, JSON.stringify(res)).toBe(true)
  return (res as { ok: true; output: { turnId: string } }).output.turnId
}

async function memoryEvents(r: Rig, provider: string) {
  const res = (await r.host!.dispatcher.invoke('memory.events', { profile: 'default', provider })) as {
    ok: true
    output: { items: Array<{ kind: string; name: string; ok: boolean; summary: string }> }
  }
  return res.output.items
}

let rig: Rig | undefined
const savedTimeout = process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS
afterEach(async () => {
  await rig?.close()
  rig = undefined
  if (savedTimeout === undefined) delete process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS
  else process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS = savedTimeout
})

describe('a memory plugin that never answers', () => {
  it('hooks that never settle time out, are reported, and the turn completes without their part', async () => {
    process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS = '300'
    rig = await makeRig(() => ({ text: 'answered' }))
    writePlugin(rig.root, 'slowmem', stuckPlugin('slowmem', ['systemPromptBlock', 'onTurnStart', 'syncTurn']))
    rig.writeConfig('default', 'memory:\n  provider: slowmem\n')
    await rig.start()
    const turnId = await start(rig, 'hello')
    await waitUntil(() => finished(rig!).some((e) => e.payload.turnId === turnId))
    const done = finished(rig).find((e) => e.payload.turnId === turnId)!
    expect(done.payload.status).toBe('completed')
    const req = rig.chats()[0]!
    // The provider stays (its other calls work): its tool is offered, its stuck prompt block is not there.
    expect(toolNames(req)).toContain('slowmem_recall')
    expect(JSON.stringify(req.body.messages)).not.toContain('STUCK PLUGIN BLOCK')
    await waitUntil(async () => (await memoryEvents(rig!, 'slowmem')).some((e) => e.name === 'sync_turn'))
    const failed = (await memoryEvents(rig, 'slowmem')).filter((e) => e.kind === 'error')
    expect(failed.map((e) => e.name).sort()).toEqual(['on_turn_start', 'sync_turn', 'system_prompt'])
    for (const e of failed) expect(e.summary).toBe('timed out after 300 ms')
  })

  it.each([
    ['initialize', stuckPlugin('slowmem', ['initialize']), 'did not finish starting in time'],
    ['load', stuckPlugin('slowmem', [], `await ${NEVER}\n`), 'did not load within 0.3 s']
  ])('a %s that never settles drops the provider with a notice; the agent is built', async (_, source, said) => {
    process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS = '300'
    rig = await makeRig(() => ({ text: 'answered' }))
    writePlugin(rig.root, 'slowmem', source)
    rig.writeConfig('default', 'memory:\n  provider: slowmem\n')
    await rig.start()
    const turnId = await start(rig, 'hello')
    await waitUntil(() => finished(rig!).some((e) => e.payload.turnId === turnId))
    expect(finished(rig).find((e) => e.payload.turnId === turnId)!.payload.status).toBe('completed')
    expect(toolNames(rig.chats()[0]!)).not.toContain('slowmem_recall')
    expect(notices(rig).join('\n')).toContain(`Memory provider 'slowmem' ${said}`)
    const load = (await memoryEvents(rig, 'slowmem')).find((e) => e.kind === 'provider')
    expect(load).toMatchObject({ ok: false, summary: expect.stringContaining('slowmem: failed') })
  })

  it('Stop ends a turn stuck in a memory hook at once', async () => {
    process.env.CADUCEUS_MEMORY_HOOK_TIMEOUT_MS = '60000'
    rig = await makeRig(() => ({ text: 'answered' }))
    writePlugin(rig.root, 'slowmem', stuckPlugin('slowmem', ['onTurnStart']))
    rig.writeConfig('default', 'memory:\n  provider: slowmem\n')
    await rig.start()
    const turnId = await start(rig, 'hello')
    await waitUntil(() => rig!.events.some((e) => e.event === 'turn.started' && e.payload.turnId === turnId))
    await new Promise((r) => setTimeout(r, 200))
    const stopped = Date.now()
    expect((await rig.host!.dispatcher.invoke('turns.stop', { turnId })).ok).toBe(true)
    await waitUntil(() => finished(rig!).some((e) => e.payload.turnId === turnId))
    expect(Date.now() - stopped).toBeLessThan(2_000)
    expect(finished(rig).find((e) => e.payload.turnId === turnId)!.payload.status).toBe('interrupted')
    expect(rig.chats()).toHaveLength(0)
  })
})
