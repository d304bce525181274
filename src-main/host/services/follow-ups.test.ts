// The follow-up queue made before the gateway and handed to it (no late-bound `let gateway`, no `connect` after the
// graph is built): notices queued before the gateway takes its deliveries wait and run in order; a one-shot host saves
// at once and runs none; a follow-up turn that fails after its notice was saved is a warning, while a notice that was
// never saved is the caller's to keep (a rejection).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger, type Logger } from '@shared/contract/log'
import { Gateway, type BuildAgentInput } from '../../gateway'
import { TestAgent } from '../../gateway/test-fixtures/test-agent'
import { EnvFileVault } from '../../secrets'
import { StoreRegistry, type SessionStore } from '../../store'
import { FollowUpPort } from './follow-ups'

/** What the gateway's deliverSaved receives (derived from the port, as the structure test asks of test types). */
type Delivery = Parameters<Parameters<FollowUpPort['runWith']>[0]>[0]

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = []
  return { warnings, debug() {}, info() {}, warn: (name, m) => void warnings.push(`${name}: ${m}`), error() {} }
}

const saver = (saved: string[], n: number) => async (tip: string) => {
  saved.push(`${n}@${tip}`)
  return { messageId: n, text: `process ${n} finished` }
}

/** A conversation continued by compression: s1 goes on in s1-tip. */
const tipOf = async (_profile: string, id: string) => `${id}-tip`

describe('FollowUpPort', () => {
  it('holds notices queued before the gateway takes the queue and delivers them in order after', async () => {
    const port = new FollowUpPort({ live: true, log: recordingLog(), tipOf })
    const saved: string[] = []
    const turns: Array<{ sessionId: string; turn: unknown }> = []
    const first = port.saveAndRun('terminal', 'proc_1', 'default', 's1', saver(saved, 1))
    const second = port.saveAndRun('terminal', 'proc_2', 'default', 's1', saver(saved, 2))
    expect(saved).toEqual([])
    port.runWith(async (input: Delivery) => {
      turns.push({ sessionId: input.sessionId, turn: await input.save('s1-tip') })
    })
    await Promise.all([first, second])
    expect(saved).toEqual(['1@s1-tip', '2@s1-tip'])
    expect(turns).toEqual([
      { sessionId: 's1', turn: { messageId: 1, text: 'process 1 finished' } },
      { sessionId: 's1', turn: { messageId: 2, text: 'process 2 finished' } }
    ])
  })

  it('saves at once into the live tip and runs no follow-up turn in a one-shot host (live: false)', async () => {
    const port = new FollowUpPort({ live: false, log: recordingLog(), tipOf })
    const saved: string[] = []
    const delivered: unknown[] = []
    port.runWith(async (input) => void delivered.push(input))
    await port.saveAndRun('terminal', 'proc_3', 'default', 's1', saver(saved, 3))
    expect(saved).toEqual(['3@s1-tip'])
    expect(delivered).toEqual([])
  })

  it('logs a follow-up turn that fails after its notice was saved; rejects when the notice was not saved', async () => {
    const log = recordingLog()
    const port = new FollowUpPort({ live: true, log, tipOf })
    let saveFirst = true
    port.runWith(async (input) => {
      if (saveFirst) await input.save('s1')
      throw new Error('The host is shutting down.')
    })
    await expect(port.saveAndRun('terminal', 'proc_4', 'default', 's1', saver([], 4))).resolves.toBeUndefined()
    expect(log.warnings).toEqual(['terminal: could not run the follow-up turn for proc_4: The host is shutting down.'])
    saveFirst = false
    await expect(port.saveAndRun('terminal', 'proc_5', 'default', 's1', saver([], 5))).rejects.toThrow(/shutting down/)
  })

  it('a gateway given the queue runs what was queued before it existed as the next turn; one queue, one gateway', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cad-followups-'))
    writeFileSync(join(root, 'config.yaml'), 'model: {default: m, provider: openai}\n')
    writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-test-0001\n')
    const stores = new StoreRegistry(root)
    const turns: Array<{ sessionId: string; text: string; savedUserMessageId?: number }> = []
    /** Answers each turn with one stored reply. */
    class ReplyingAgent extends TestAgent {
      constructor(private readonly input: BuildAgentInput<SessionStore>) {
        super()
      }
      async runTurn(text: string, o: { savedUserMessageId?: number }) {
        turns.push({ sessionId: this.input.sessionId, text, savedUserMessageId: o.savedUserMessageId })
        await this.input.store.appendMessage(this.input.sessionId, { role: 'assistant', content: 'noted' })
        return {
          status: 'completed' as const,
          tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          costUsd: 0,
          costStatus: 'estimated' as const,
          apiCalls: 1
        }
      }
    }
    const options = (followUps: FollowUpPort) => ({
      vault: new EnvFileVault(),
      root,
      stores,
      log: silentLogger,
      followUps,
      buildAgent: (input: BuildAgentInput<SessionStore>) => new ReplyingAgent(input),
      emit: () => undefined
    })
    const gateways: Array<Gateway<ReplyingAgent, SessionStore>> = []
    try {
      await stores.get('default').createSession('s1', 'desktop')
      const port = new FollowUpPort({ live: true, log: recordingLog(), tipOf })
      const store = stores.get('default')
      const queued = port.saveAndRun('delegation', 'task 1', 'default', 's1', async (tip) => ({
        messageId: await store.appendMessage(tip, { role: 'user', content: 'task 1 finished' }),
        text: 'task 1 finished'
      }))
      gateways.push(new Gateway<ReplyingAgent, SessionStore>(options(port)))
      await queued
      const { waitUntil } = await import('../../tools/test-fixtures/helpers')
      await waitUntil(() => store.getMessages({ sessionId: 's1', limit: 10 }).items.length === 2)
      const rows = store.getMessages({ sessionId: 's1', limit: 10 }).items
      expect(rows.map((m) => [m.role, m.content])).toEqual([
        ['user', 'task 1 finished'],
        ['assistant', 'noted']
      ])
      expect(turns).toEqual([{ sessionId: 's1', text: 'task 1 finished', savedUserMessageId: rows[0]!.id }])
      expect(() => new Gateway<ReplyingAgent, SessionStore>(options(port))).toThrow(/already has its gateway/)
    } finally {
      for (const g of gateways) await g.shutdown()
      stores.closeAll()
      rmSync(root, { recursive: true, force: true })
    }
  })
})
