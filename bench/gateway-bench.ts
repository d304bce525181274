/**
 * Gateway bench: (1) the cache-hit path — config + secrets + signature + message_count guard + lookup —
 * in microseconds, on a real profile home and state.db; (2) N own turns through the real Gateway, Agent
 * and scripted provider, counting rebuilds (target 0: our own writes must never invalidate the cache).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CacheDecision } from '../shared/contract'
import type { Agent } from '../src-main/agent'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { loadConfig, resolveRuntime } from '../src-main/config'
import { EnvFileVault, secretsFor } from '../src-main/secrets'
import { Gateway } from '../src-main/gateway'
import { buildRealAgent } from '../src-main/gateway/test-fixtures/real-agent'
import { AgentCache } from '../src-main/gateway/agent-cache'
import { agentConfigSignature } from '../src-main/gateway/signature'
import { extractCacheBustingConfig } from '../src-main/gateway/cache-busting'
import { sessionKeyFor } from '../src-main/gateway/session-key'
import { storeProbe } from '../src-main/gateway/store-probe'
import { TurnConfigResolver } from '../src-main/gateway/turn-config'
import { profileHome } from '../src-main/scope'
import { StoreRegistry, type SessionStore } from '../src-main/store'
import { percentiles } from './percentiles'

interface Percentiles {
  p50: number
  p95: number
}

export interface GatewayBenchResult {
  cacheHitUs: Percentiles
  /** The same hit without the turn-config memo and with `SELECT *` for the guard (for comparison). */
  cacheHitUncachedUs: Percentiles
  ownTurns: number
  rebuilds: number
}

export async function runGatewayBench(opts: { turns?: number; hitSamples?: number } = {}): Promise<GatewayBenchResult> {
  const turns = opts.turns ?? 1000
  const samples = opts.hitSamples ?? 5000
  const provider = await startScriptedProvider({
    handler: () => ({ text: 'ok', usage: { promptTokens: 20, completionTokens: 1 } })
  })
  const root = mkdtempSync(join(tmpdir(), 'cad-gw-bench-'))
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: bench-model\n  provider: custom\n  base_url: "${provider.baseUrl}"\n  api_key_env: OPENAI_API_KEY\ncompression:\n  enabled: false\n`
  )
  writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-bench-0000000000\n')
  const registry = new StoreRegistry(root)
  try {
    const { hit: cacheHitUs, uncached: cacheHitUncachedUs } = await hitPath(registry, root, samples)
    const decisions: CacheDecision[] = []
    const gateway = new Gateway<Agent, SessionStore>({
      vault: new EnvFileVault(),
      root,
      stores: registry,
      buildAgent: (i) => buildRealAgent(i, { compression: { enabled: false } }),
      emit: (event, payload) => {
        if (event === 'turn.started') decisions.push((payload as { cache: CacheDecision }).cache)
      }
    })
    const first = await gateway.start({ profile: 'default', text: 'start' })
    await gateway.finished(first.turnId)
    for (let i = 0; i < turns; i++) {
      const h = await gateway.resume({ profile: 'default', sessionId: first.sessionId, text: `turn ${i}` })
      await gateway.finished(h.turnId)
    }
    await gateway.shutdown()
    // Every decision after the first build should be a reuse.
    return {
      cacheHitUs,
      cacheHitUncachedUs,
      ownTurns: turns,
      rebuilds: decisions.slice(1).filter((d) => d !== 'reused').length
    }
  } finally {
    registry.closeAll()
    await provider.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/**
 * What `Gateway.begin` does before a reused turn — profile home, turn config (stat stamps, memoized
 * signature), guard probe through the store, cache lookup — with the Gateway's own components, timed per
 * call. The un-memoized path (config reads + SELECT * + fresh hash every turn, as before the memo) is
 * timed right after it in the same process, for a like-for-like ratio on a loaded machine.
 */
async function hitPath(
  registry: StoreRegistry,
  root: string,
  samples: number
): Promise<{ hit: Percentiles; uncached: Percentiles }> {
  const store = registry.get('default')
  await store.createSession('bench-hit', 'desktop')
  await store.appendMessage('bench-hit', { role: 'user', content: 'x' })
  const key = sessionKeyFor('default', 'bench-hit')
  const resolver = new TurnConfigResolver({ vault: new EnvFileVault(), registryGeneration: () => 1 })
  const cache = new AgentCache({ probe: storeProbe(registry) })
  const baseline = new AgentCache({
    probe: {
      messageCount: (_k, sid) => store.getSession(sid)?.messageCount ?? null,
      isSessionEnded: (_k, sid) => store.getSession(sid)?.endedAt != null
    }
  })
  const uncachedSignature = (home: string) => {
    const vault = new EnvFileVault()
    const secrets = secretsFor(home, vault)
    const runtime = resolveRuntime(home, { vault, secrets })
    const config = loadConfig(home).raw
    return agentConfigSignature({
      model: runtime.model,
      runtime,
      enabledToolsets: [],
      ephemeralPrompt: '',
      cacheKeys: extractCacheBustingConfig(config, { registryGeneration: 1 }),
      skipContextFiles: false
    })
  }
  const sig = resolver.resolve('default', profileHome(root, 'default')).signature
  if (sig !== uncachedSignature(profileHome(root, 'default')))
    throw new Error('bench: memoized and fresh signatures differ')
  cache.insert(key, { lastActivityTs: Date.now() }, sig, { messageCount: 1, sessionId: 'bench-hit' })
  baseline.insert(key, { lastActivityTs: Date.now() }, sig, { messageCount: 1, sessionId: 'bench-hit' })
  const timed = (fn: () => CacheDecision): number[] => {
    for (let i = 0; i < 500; i++) fn() // warm-up: JIT, page cache, statement cache
    const out: number[] = []
    for (let i = 0; i < samples; i++) {
      const t0 = process.hrtime.bigint()
      const decision = fn()
      out.push(Number(process.hrtime.bigint() - t0) / 1000)
      if (decision !== 'reused') throw new Error(`bench hit path missed: ${decision}`)
    }
    return out
  }
  // Separate runs, not interleaved: the un-memoized path's garbage would land GC pauses in the other's samples.
  const hit = timed(() => {
    const tc = resolver.resolve('default', profileHome(root, 'default'))
    return cache.lookup(key, { signature: tc.signature, sessionId: 'bench-hit', maxIterations: tc.budgets.chat.max })
      .decision
  })
  const uncached = timed(
    () =>
      baseline.lookup(key, { signature: uncachedSignature(profileHome(root, 'default')), sessionId: 'bench-hit' })
        .decision
  )
  return { hit: pctOf(hit), uncached: pctOf(uncached) }
}

function pctOf(xs: number[]): Percentiles {
  return percentiles(xs)
}

// `npx tsx bench/gateway-bench.ts [turns]`
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void runGatewayBench({ turns: Number(process.argv[2] ?? 1000) }).then((r) => console.log(JSON.stringify(r)))
}
