// Seed 001's provider-identity rules against the production loader (host/memory-providers/provider-host.ts over real
// plugin folders in a temp root), and through real turns: a plugin is loaded once per version of its files
// and asked its identitySignature() on every signature, so a writer changed from alice to bob rebuilds the
// cached agent ('config_changed', the turn badge's "fresh agent: memory provider identity changed (alice → bob)")
// while an unchanged one is reused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { extractCacheBustingConfig, staticCacheBustingConfig } from '../../gateway/cache-busting'
import { createLogger } from '../log/log'
import { MemoryActivityHub } from '../../memory'
import { MemoryProviderHost } from './provider-host'
import { makeRig, writePlugin, type Rig } from '../test-fixtures/memory-host'

const G = globalThis as Record<string, unknown>
const SOURCE_KEYS = ['memory.files', 'memory.source', 'memory.version']

/** A plugin counting its instances and naming its writer (read on every identitySignature call). */
function identityPlugin(key: string, hook: 'writer' | 'none' | 'throws'): string {
  const identity = {
    writer: `identitySignature() { return { '${key}.writer': globalThis['${key}_writer'], '${key}.aliases': [['a', 'b']] } },`,
    none: '',
    throws: "identitySignature() { throw new Error('boom') },"
  }[hook]
  return `
export function createProvider() {
  globalThis['${key}_created'] = (globalThis['${key}_created'] ?? 0) + 1
  return { name: '${key}', isAvailable: () => true, getToolSchemas: () => [], ${identity} prefetch: () => '', syncTurn() {} }
}
`
}

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

function hostOn(root: string): MemoryProviderHost {
  return new MemoryProviderHost({ root, log: createLogger(), hub: new MemoryActivityHub() })
}

async function signatureKeys(host: MemoryProviderHost, home: string, profile = 'default') {
  await host.prepare(profile, home)
  const { loadConfig } = await import('../../config')
  return extractCacheBustingConfig(loadConfig(home).raw, { memoryIdentity: host, scope: { profile, home } })
}

describe('provider identity from the production loader (seed 001)', () => {
  it('enters under memory.* and is re-read from one memoized instance per version of the files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cad-ident-'))
    cleanup.push(() => rmSync(root, { recursive: true, force: true }))
    writePlugin(root, 'fakeprov', identityPlugin('fakeprov', 'writer'))
    writeFileSync(join(root, 'config.yaml'), 'memory:\n  provider: fakeprov\n')
    const host = hostOn(root)
    G.fakeprov_writer = 'alice'
    const first = await signatureKeys(host, root)
    G.fakeprov_writer = 'bob'
    const second = await signatureKeys(host, root)
    const own = (o: Record<string, unknown>) =>
      Object.keys(o)
        .filter((k) => k.startsWith('memory.fakeprov.'))
        .sort()
    expect(own(first)).toEqual(['memory.fakeprov.aliases', 'memory.fakeprov.writer'])
    expect(first['memory.fakeprov.aliases']).toEqual([['a', 'b']])
    expect([first['memory.fakeprov.writer'], second['memory.fakeprov.writer']]).toEqual(['alice', 'bob'])
    expect(G.fakeprov_created).toBe(1)
    // Editing the plugin's code is a new version: loaded again (once), identity still its own.
    writeFileSync(
      join(root, 'caduceus-plugins', 'memory', 'fakeprov', 'index.mjs'),
      identityPlugin('fakeprov', 'writer') + '\n// v2\n'
    )
    const third = await signatureKeys(host, root)
    await signatureKeys(host, root)
    expect(G.fakeprov_created).toBe(2)
    expect(third['memory.files']).not.toEqual(second['memory.files'])
    expect(third['memory.fakeprov.writer']).toBe('bob')
    delete G.fakeprov_writer
    delete G.fakeprov_created
  })

  it.each(['none', 'throws', 'absent'] as const)(
    'a provider without a working identity hook contributes only where it comes from (%s)',
    async (kind) => {
      const root = mkdtempSync(join(tmpdir(), 'cad-ident-'))
      cleanup.push(() => rmSync(root, { recursive: true, force: true }))
      if (kind !== 'absent') writePlugin(root, 'p', identityPlugin('p', kind))
      writeFileSync(join(root, 'config.yaml'), 'memory:\n  provider: p\n')
      const out = await signatureKeys(hostOn(root), root)
      // what the provider adds, beside the config file's own memory.* keys (memory.provider, the char limits)
      const fromFile = staticCacheBustingConfig({})
      const declared = Object.keys(out).filter((k) => k.startsWith('memory.') && !(k in fromFile))
      expect(declared.sort()).toEqual(kind === 'absent' ? ['memory.source'] : SOURCE_KEYS)
      expect(out).toHaveProperty(['tools.registry_generation'])
      delete G.p_created
    }
  )
})

describe('through real turns', () => {
  let rig: Rig | undefined
  afterEach(async () => {
    await rig?.close()
    rig = undefined
  })

  it('the first turn already carries the identity (reused next); alice → bob rebuilds the cached agent', async () => {
    rig = await makeRig(() => ({ text: 'ok' }))
    writePlugin(rig.root, 'whoami', identityPlugin('whoami', 'writer'))
    rig.writeConfig('default', 'memory:\n  provider: whoami\n')
    G.whoami_writer = 'alice'
    await rig.start()
    const d = rig.host!.dispatcher
    const decisions = () => rig!.events.filter((e) => e.event === 'turn.started').map((e) => e.payload.cache as string)
    const finishedCount = () => rig!.events.filter((e) => e.event === 'turn.finished').length
    const { waitUntil } = await import('../../tools/test-fixtures/helpers')
    const say = async (text: string, sessionId?: string) => {
      const n = finishedCount()
      const res = (await (sessionId
        ? d.invoke('sessions.resume', { profile: 'default', sessionId, text })
        : d.invoke('sessions.start', { profile: 'default', text }))) as { ok: boolean; output: { sessionId: string } }
      expect(res.ok, JSON.stringify(res)).toBe(true)
      await waitUntil(() => finishedCount() > n)
      return res.output.sessionId
    }
    const sid = await say('one')
    await say('two', sid)
    G.whoami_writer = 'bob'
    await say('three', sid)
    await say('four', sid)
    expect(decisions()).toEqual(['new', 'reused', 'config_changed', 'reused'])
    // What the renderer receives says why (the badge shows it): the writer, not the unchanged aliases.
    const started = rig.events.filter((e) => e.event === 'turn.started').map((e) => e.payload.cacheReason)
    expect(started).toEqual([undefined, undefined, 'memory provider identity changed (alice → bob)', undefined])
    delete G.whoami_writer
    delete G.whoami_created
  })
})
