/**
 * Soft release vs hard close on a real Agent (seed 001's agent-level tests). Upstream's terminal sandbox
 * and browser are per-task tool state; here any tool can own such state through `cleanupTask`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { makeKit, recordingTool, type Kit } from './test-fixtures/kit'

let kit: Kit
afterEach(async () => {
  await kit?.cleanup()
})

function sandboxTools(k: Kit) {
  const cleaned: string[] = []
  k.tools.register(
    recordingTool('terminal', undefined, {
      cleanupTask: (id) => {
        cleaned.push(`terminal:${id}`)
      }
    }).def
  )
  k.tools.register(
    recordingTool('browser', undefined, {
      cleanupTask: (id) => {
        cleaned.push(`browser:${id}`)
      }
    }).def
  )
  return cleaned
}

describe('releaseClients vs close', () => {
  // seed 001: test_release_clients_does_not_touch_terminal_or_browser
  it('releaseClients leaves per-task tool state alone and only drops the client', async () => {
    kit = await makeKit([{ text: 'hi' }])
    const cleaned = sandboxTools(kit)
    const agent = kit.makeAgent({ sessionId: 'idle-resume-test-2' })
    await agent.runTurn('hello')
    agent.releaseClients()
    expect(agent.client).toBeNull()
    expect(cleaned).toEqual([])
    await agent.close()
  })

  // seed 001: test_close_vs_release_full_teardown_difference
  it('close tears down the task state; a soft-released agent keeps it', async () => {
    kit = await makeKit([])
    const cleaned = sandboxTools(kit)
    const soft = kit.makeAgent({ sessionId: 'soft-session' })
    const hard = kit.makeAgent({ sessionId: 'hard-session' })
    soft.releaseClients()
    await hard.close()
    expect(cleaned).toContain('terminal:hard-session')
    expect(cleaned).toContain('browser:hard-session')
    expect(cleaned.some((c) => c.endsWith('soft-session'))).toBe(false)
  })

  it('a failing cleanup does not stop close', async () => {
    kit = await makeKit([])
    kit.tools.register(
      recordingTool('bad', undefined, {
        cleanupTask: () => {
          throw new Error('boom')
        }
      }).def
    )
    let shut = false
    const agent = kit.makeAgent({
      memory: {
        shutdownAll: () => {
          shut = true
        }
      }
    })
    await agent.close()
    expect(agent.closed).toBe(true)
    expect(shut).toBe(true)
  })
})
