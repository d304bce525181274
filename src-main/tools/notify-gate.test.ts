// Seed 003 TestTerminalNotifyGate: background terminal + notify_on_complete honours the session's
// async-delivery capability (hermes-spec §4.5).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runOnChannel, TURN_CHANNELS } from '../gateway/channels'
import { runInFreshContext, setSessionVars, type SessionVars } from '../gateway/session-context'
import { createTerminalTool, ProcessRegistry } from './index'
import { type ProcessCompletion } from './process-types'
import { cleanupDirs, ctxFor, nodeCmd, tempDir } from './test-fixtures/helpers'

let registry: ProcessRegistry
let completions: ProcessCompletion[]

beforeEach(() => {
  completions = []
  registry = new ProcessRegistry({ onComplete: (c) => void completions.push(c) })
})

afterEach(async () => {
  await registry.killAll()
  registry.pendingWatchers = []
  cleanupDirs()
})

/** A turn bound to `vars` (what a gateway channel's bind step does), isolated like runOnChannel. */
const inTurn = <T>(vars: SessionVars, fn: () => T): T =>
  runInFreshContext(() => {
    setSessionVars(vars)
    return fn()
  })

async function runBg(command: string, ctx = ctxFor()): Promise<Record<string, unknown>> {
  const tool = createTerminalTool({ registry, cwd: tempDir() })
  return JSON.parse(await tool.execute({ command, background: true, notify_on_complete: true }, ctx))
}

describe('terminal notify gate', () => {
  // seed 003: TestTerminalNotifyGate.test_api_server_skips_watcher_and_notes
  it('api_server: notify off, an explanation that mentions polling, no watcher', async () => {
    const vars = { platform: 'api_server', chatId: 's1', sessionKey: 's1', asyncDelivery: false }
    const d = await inTurn(vars, () => runBg('sleep 30 && echo DONE'))
    expect(d.notify_on_complete).toBe(false)
    expect(typeof d.notify_unsupported).toBe('string')
    expect(String(d.notify_unsupported).toLowerCase()).toContain('poll')
    expect(registry.pendingWatchers).toHaveLength(0)
    expect(d.status).toBe('running')
    expect(String(d.process_id)).toMatch(/^proc_[0-9a-f]+$/)
  })

  // seed 003: test_api_server_skips_watcher_and_notes (through the API-server binding chokepoint)
  it('the API-server channel gates the same way, and the process still runs (pollable)', async () => {
    const d = await runOnChannel(TURN_CHANNELS.api, { chatId: 'c1', sessionKey: 'k1', sessionId: 's1' }, () =>
      runBg(nodeCmd('console.log("DONE")'))
    )
    expect(d.notify_on_complete).toBe(false)
    expect(String(d.notify_unsupported)).toMatch(/poll/i)
    expect(registry.pendingWatchers).toHaveLength(0)
    const final = await registry.wait(String(d.process_id))
    expect(final?.status).toBe('exited')
    expect(final?.output).toContain('DONE')
    expect(completions).toHaveLength(0)
  })

  // seed 003: TestTerminalNotifyGate.test_gateway_registers_watcher
  it('telegram: notify stays on and exactly one watcher carries the routing', async () => {
    const vars = {
      platform: 'telegram',
      chatId: '123',
      threadId: '7',
      userId: 'u1',
      sessionKey: 'telegram:private:123',
      asyncDelivery: true
    }
    const d = await inTurn(vars, () => runBg('sleep 30 && echo DONE'))
    expect(d.notify_on_complete).toBe(true)
    expect(d.notify_unsupported).toBeUndefined()
    expect(registry.pendingWatchers).toHaveLength(1)
    const w = registry.pendingWatchers[0]!
    expect(w.platform).toBe('telegram')
    expect(w).toMatchObject({
      processId: d.process_id,
      chatId: '123',
      threadId: '7',
      userId: 'u1',
      sessionKey: 'telegram:private:123',
      sessionId: 's1'
    })
  })

  // seed 003: TestTerminalNotifyGate.test_cli_stays_supported
  it('CLI (nothing bound): notify on, no false note, no watcher, and the completion callback still fires', async () => {
    const d = await runBg(nodeCmd('console.log("DONE")'))
    expect(d.notify_on_complete).toBe(true)
    expect(d.notify_unsupported).toBeUndefined()
    expect(registry.pendingWatchers).toHaveLength(0)
    await registry.wait(String(d.process_id))
    await new Promise((r) => setImmediate(r))
    expect(completions).toHaveLength(1)
    expect(completions[0]).toMatchObject({ processId: d.process_id, profile: 'default', sessionId: 's1', exitCode: 0 })
    expect(completions[0]!.outputTail).toContain('DONE')
  })

  it('desk chat turns bind platform "desktop": watcher registered, removed once the process ends', async () => {
    const d = await runOnChannel(TURN_CHANNELS.desk, { sessionId: 's1', sessionKey: 'k', profile: 'default' }, () =>
      runBg(nodeCmd('console.log("DONE")'))
    )
    expect(d.notify_on_complete).toBe(true)
    expect(registry.pendingWatchers.map((w) => w.platform)).toEqual(['desktop'])
    await registry.wait(String(d.process_id))
    expect(registry.pendingWatchers).toHaveLength(0)
  })

  it('without notify_on_complete there is no note, no watcher and no completion', async () => {
    const tool = createTerminalTool({ registry, cwd: tempDir() })
    const d = JSON.parse(
      await inTurn({ platform: 'telegram', chatId: '1' }, () =>
        tool.execute({ command: nodeCmd('1'), background: true }, ctxFor())
      )
    )
    expect(d).toMatchObject({ status: 'running', notify_on_complete: false })
    expect(d.notify_unsupported).toBeUndefined()
    expect(registry.pendingWatchers).toHaveLength(0)
    await registry.wait(d.process_id)
    await new Promise((r) => setImmediate(r))
    expect(completions).toHaveLength(0)
  })
})
