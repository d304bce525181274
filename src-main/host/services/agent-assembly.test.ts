// The toolset and runtime rules the host builds agents and children with.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig, readSettings, resolveRuntime } from '../../config'
import { startScriptedProvider } from '../../agent/scripted/server'
import { isSummaryCall } from '../../agent/test-fixtures/kit'
import { EnvFileVault } from '../../secrets'
import { SessionStore } from '../../store'
import { assembleAgent, childToolsets, profileToolsets, type AssemblyDeps } from './agent-assembly'
import { providerReadTimeout } from './provider-limits'

describe('agent assembly rules', () => {
  // A child's own model: delegation-host.test.ts ("a follow-up rebuilds the retained child on the model…").
  // Leaf and orchestrator denials: delegation-host.test.ts ("children get real tools") sees them in real requests.
  it('children: the parent toolsets or the requested subset of them', () => {
    const parent = profileToolsets({ terminal: { enabled: true } })
    expect(parent).toEqual(['memory', 'delegation', 'terminal'])
    expect(childToolsets(parent, null)).toEqual(parent)
    expect(childToolsets(parent, ['terminal', 'browser'])).toEqual(['terminal'])
  })
})

// Upstream's provider timeouts (test/fixtures/upstream/provider-timeouts, recorded by
// scripts/golden/provider_timeouts.py from upstream's own readers) read from the same config.yaml and environment.
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../test/fixtures/upstream/provider-timeouts/cases.json'), 'utf8')
) as {
  cases: Array<{
    name: string
    config: string
    env: Record<string, string>
    provider: string
    model: string
    baseUrl: string
    configured: number | string | null
    read: number | string
  }>
}
const root = mkdtempSync(join(tmpdir(), 'cad-provider-timeouts-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Upstream's seconds as the call's clock takes them: ms, 0 = none (infinity); NaN or ≤ 0 is what upstream cannot wait on. */
const asMs = (s: number | string) => (s === 'inf' ? 0 : typeof s === 'number' && s > 0 ? Math.round(s * 1000) : null)

describe('provider request timeouts, as upstream reads them', () => {
  it.each(golden.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const home = join(root, c.name)
    mkdirSync(home)
    writeFileSync(join(home, 'config.yaml'), c.config)
    const got = providerReadTimeout(loadConfig(home).raw ?? {}, c, c.env)
    const wait = got.configured ?? got.fromEnv
    const upstream = asMs(c.read)
    if (upstream !== null) {
      expect(wait).toBe(upstream)
      expect(got.configured !== undefined).toBe(c.configured !== null)
    } else {
      // NaN from config.yaml, or a zero / negative variable: every call would fail at once there; here the value is
      // left out with a warning and the default stands (1800 s for this local endpoint, upstream's own default).
      expect(wait).toBe(c.configured === 'nan' ? 120_000 : 1_800_000)
      expect(got.warnings.join('\n')).toMatch(/is not a number of seconds above 0/)
    }
  })

  it('says which value it left out and why', () => {
    const home = join(root, 'warned')
    mkdirSync(home)
    writeFileSync(
      join(home, 'config.yaml'),
      'providers:\n  custom:\n    request_timeout_seconds: soon\n    models:\n      m:\n        timeout_seconds: -2\n'
    )
    const got = providerReadTimeout(
      loadConfig(home).raw ?? {},
      { provider: 'custom', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
      { HERMES_API_TIMEOUT: 'slow' }
    )
    expect(got).toEqual({
      fromEnv: 1_800_000,
      warnings: [
        'config.yaml providers.custom.models.m.timeout_seconds: -2 is not a number of seconds above 0, so it is not used.',
        'config.yaml providers.custom.request_timeout_seconds: "soon" is not a number of seconds above 0, so it is not used.',
        'HERMES_API_TIMEOUT=slow is not a number of seconds above 0, so 1800 s is used.'
      ]
    })
  })
})

// Upstream's compression settings (test/fixtures/upstream/compression-defaults, recorded by
// scripts/golden/compression_defaults.py from the AIAgent upstream builds): on unless config.yaml says otherwise,
// 0.5 floored at 0.75 under a 512K window, protect_last_n 20, target ratio 0.2, the model's window.
const compressionGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../test/fixtures/upstream/compression-defaults/golden.json'), 'utf8')
) as {
  cases: Array<{
    config: string
    compression: string
    model: string
    contextLength: number
    enabled: boolean
    threshold: number
    thresholdTokens: number
    protectLastN: number
    targetRatio: number
  }>
}
const secrets = { OPENAI_API_KEY: 'sk-assembly-test' }
/** Only what a leaf agent with no toolsets uses of the host's services: the log. */
const quietDeps = { log: { debug() {}, info() {}, warn() {}, error() {} } } as unknown as AssemblyDeps

async function agentFor(home: string, store: SessionStore, sessionId = 'S1') {
  return assembleAgent(quietDeps, {
    profile: 'default',
    home,
    sessionId,
    sessionKey: `agent:default:desktop:${sessionId}`,
    store,
    config: loadConfig(home).raw ?? {},
    runtime: resolveRuntime(home, { vault: new EnvFileVault(), secrets }),
    secrets,
    maxIterations: 5,
    toolsets: [],
    role: 'leaf',
    source: 'desktop'
  })
}

describe('compression settings, as upstream resolves them', () => {
  it.each(compressionGolden.cases.map((c) => [`${c.config} @ ${c.contextLength}`, c] as const))(
    '%s',
    async (name, c) => {
      const home = join(root, `compression-${name.replace(/[^\w.-]+/g, '_')}`)
      mkdirSync(home)
      writeFileSync(
        join(home, 'config.yaml'),
        `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  context_length: ${c.contextLength}\n${c.model}${c.compression}`
      )
      const store = new SessionStore(join(home, 'state.db'), { profile: 'default' })
      try {
        const got = (await agentFor(home, store)).compressionConfig
        expect(got).toMatchObject({
          enabled: c.enabled,
          contextLength: c.contextLength,
          protectLastN: c.protectLastN,
          targetRatio: c.targetRatio
        })
        // the trigger: the fraction (0.75 floor under 512K) of the window less max_tokens, never under 64K tokens
        expect(Math.round(got.threshold * got.contextLength)).toBe(c.thresholdTokens)
        // and the Settings page says that trigger, not the configured share
        expect(readSettings(home, { vault: new EnvFileVault() }).compression).toMatchObject({
          enabled: c.enabled,
          triggerTokens: c.thresholdTokens,
          contextWindow: c.contextLength
        })
      } finally {
        store.close()
      }
    }
  )

  it('a turn over the threshold compresses with no compression section in config.yaml', async () => {
    const provider = await startScriptedProvider({
      handler: (req) => ({ text: isSummaryCall(req) ? 'They discussed topics A to F.' : 'Noted.' })
    })
    const home = join(root, 'compression-untouched')
    mkdirSync(home)
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n  context_length: 2000\n`
    )
    const store = new SessionStore(join(home, 'state.db'), { profile: 'default' })
    try {
      await store.createSession('S1', 'desktop', {})
      const long = (tag: string) => `${tag}: ${'lorem ipsum dolor sit amet '.repeat(12)}`
      for (let i = 0; i < 24; i++) {
        await store.appendMessage('S1', { role: i % 2 ? 'assistant' : 'user', content: long(`message ${i}`) })
      }
      const agent = await agentFor(home, store)
      await agent.runTurn('and one more question')
      // 0.75 of the 2,000-token window (upstream's floor) is crossed: the session rotated into a continuation
      expect(provider.requests.some(isSummaryCall)).toBe(true)
      expect(store.getSession('S1')).toMatchObject({ endReason: 'compression' })
      expect(agent.sessionId).not.toBe('S1')
    } finally {
      store.close()
      await provider.close()
    }
  })
})
