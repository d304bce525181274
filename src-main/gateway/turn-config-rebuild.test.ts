/**
 * The turn-config memo through the real Gateway and a real state.db: editing config.yaml or .env between
 * turns still rebuilds the cached agent (config_changed), with the new values; untouched files keep reusing it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventName, EventPayload } from '@shared/contract'
import { EnvFileVault, envPath, updateEnvFile } from '../secrets'
import { StoreRegistry, type SessionStore } from '../store'
import { Gateway, type BuildAgentInput } from './index'
import { storeProbe } from './store-probe'
import { type GatewayStore } from './gateway-types'
import { TestAgent } from './test-fixtures/test-agent'

class WritingAgent extends TestAgent {
  constructor(readonly input: BuildAgentInput<SessionStore>) {
    super()
  }
  get sessionId() {
    return this.input.sessionId
  }
  async runTurn(text: string, o: { savedUserMessageId?: number } = {}) {
    const user = o.savedUserMessageId === undefined ? [{ role: 'user', content: text }] : [] // the gateway saved it already
    await this.input.store.appendMessages(this.input.sessionId, [...user, { role: 'assistant', content: 'ok' }])
    return {
      status: 'completed' as const,
      tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: null,
      costStatus: 'unpriced' as const,
      apiCalls: 1
    }
  }
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'cad-gw-tc-'))
  const writeConfig = (extra = '') =>
    writeFileSync(join(root, 'config.yaml'), `model: {default: m1, provider: openai}\n${extra}`)
  writeConfig()
  writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-first-0001\n')
  const registry = new StoreRegistry(root)
  const agents: WritingAgent[] = []
  const decisions: string[] = []
  let generation = 1
  const gateway = new Gateway<WritingAgent, SessionStore>({
    vault: new EnvFileVault(),
    root,
    stores: registry,
    registryGeneration: () => generation,
    buildAgent: (i) => {
      const a = new WritingAgent(i)
      agents.push(a)
      return a
    },
    emit: <K extends EventName>(event: K, payload: EventPayload<K>) => {
      if (event === 'turn.started') decisions.push((payload as EventPayload<'turn.started'>).cache)
    }
  })
  cleanups.push(async () => {
    await gateway.shutdown()
    registry.closeAll()
  })
  let sid = ''
  const turn = async (text: string) => {
    const h = sid
      ? await gateway.resume({ profile: 'default', sessionId: sid, text })
      : await gateway.start({ profile: 'default', text })
    sid = h.sessionId
    await gateway.finished(h.turnId)
    return decisions.at(-1)
  }
  return { root, agents, turn, writeConfig, bumpGeneration: () => generation++ }
}

describe('turn-config memo in the Gateway', () => {
  it('editing config.yaml or .env between turns still rebuilds; nothing edited keeps reusing', async () => {
    const { root, agents, turn, writeConfig, bumpGeneration } = setup()
    expect(await turn('a')).toBe('new')
    expect(await turn('b')).toBe('reused')
    expect(await turn('c')).toBe('reused')

    writeConfig('compression: {threshold: 0.7}\n')
    expect(await turn('after config edit')).toBe('config_changed')
    expect(await turn('d')).toBe('reused')

    writeFileSync(join(root, 'config.yaml'), 'model: {default: m22, provider: openai}\ncompression: {threshold: 0.7}\n')
    expect(await turn('after model edit')).toBe('config_changed')
    expect(agents.at(-1)!.input.runtime.model).toBe('m22')

    writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-second-0002-longer\n')
    expect(await turn('after .env edit')).toBe('config_changed')
    expect(agents.at(-1)!.input.runtime.apiKey).toBe('sk-second-0002-longer')

    // Same length, written the way the settings page writes it (temp + rename).
    updateEnvFile(envPath(root), 'OPENAI_API_KEY', 'sk-third--0003-longer')
    expect(await turn('after settings write')).toBe('config_changed')
    expect(agents.at(-1)!.input.runtime.apiKey).toBe('sk-third--0003-longer')

    bumpGeneration()
    expect(await turn('after MCP reload')).toBe('config_changed')
    expect(await turn('e')).toBe('reused')
    expect(agents).toHaveLength(6)
  })

  it('the agent gets its own runtime copy: mutating it cannot leak into the next build', async () => {
    const { agents, turn, writeConfig } = setup()
    await turn('a')
    agents[0].input.runtime.capabilities.vision = true
    ;(agents[0].input.runtime as { model: string }).model = 'mutated'
    expect(await turn('b')).toBe('reused')
    writeConfig('compression: {enabled: false}\n')
    await turn('c')
    expect(agents[1].input.runtime.model).toBe('m1')
    expect(agents[1].input.runtime.capabilities).toEqual({})
  })
})

describe('storeProbe', () => {
  it('reads the two-column sessionCounters when the store has it, getSession otherwise', () => {
    const calls: string[] = []
    const lean: GatewayStore = {
      getSession: () => {
        calls.push('getSession')
        throw new Error('must not be used')
      },
      sessionCounters: (id) => {
        calls.push('sessionCounters')
        return id === 's' ? { messageCount: 4, endedAt: 99 } : null
      }
    }
    const plain: GatewayStore = { getSession: (id) => (id === 's' ? { messageCount: 2, endedAt: null } : null) }
    const probe = storeProbe({ get: (p) => (p === 'lean' ? lean : plain) })
    expect(probe.messageCount('agent:lean:desktop:s', 's')).toBe(4)
    expect(probe.isSessionEnded('agent:lean:desktop:s', 's')).toBe(true)
    expect(probe.messageCount('agent:lean:desktop:x', 'x')).toBeNull()
    expect(calls.every((c) => c === 'sessionCounters')).toBe(true)
    expect(probe.messageCount('agent:plain:desktop:s', 's')).toBe(2)
    expect(probe.isSessionEnded('agent:plain:desktop:s', 's')).toBe(false)
    expect(probe.messageCount('not a key', 's')).toBeNull()
  })

  it('never throws: a failing store or registry reads as unknown', () => {
    const broken: GatewayStore = {
      getSession: () => {
        throw new Error('db closed')
      },
      sessionCounters: () => {
        throw new Error('db closed')
      }
    }
    const probe = storeProbe({
      get: (p) => {
        if (p === 'gone') throw new Error('no such profile')
        return broken
      }
    })
    expect(probe.messageCount('agent:default:desktop:s', 's')).toBeNull()
    expect(probe.isSessionEnded('agent:default:desktop:s', 's')).toBe(false)
    expect(probe.messageCount('agent:gone:desktop:s', 's')).toBeNull()
  })
})
