/**
 * Memory provider loading (`memory.provider` in config.yaml): Caduceus's own providers first, then a JS
 * plugin folder; upstream names Caduceus does not implement are reported as not supported. Every failure
 * is a ProviderLoadError the agent build turns into one start-up warning (built-in memory only).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorMessage } from '@shared/contract/errors'
import type { MemoryProvider } from '../provider'
import { HolographicProvider } from './holographic/provider'
import { Mem0Provider } from './mem0/provider'
import { ProviderIdentities } from './identity'
import { findPlugin, loadPlugin, readManifest } from './plugins'
import { ProviderLoadError, type ProviderContext } from './types'

export { ProviderLoadError, type ProviderContext } from './types'
export type { ProviderIdentities } from './identity'
export { PLUGIN_DIR, findPlugin as findPluginDir, pluginStamp } from './plugins'
export { HolographicProvider } from './holographic/provider'
export { Mem0Provider, MEM0_KEY_ENV } from './mem0/provider'

const BUILTIN: Record<string, { description: string; create(ctx: ProviderContext): MemoryProvider }> = {
  holographic: {
    description: 'Local fact store (memory_store.db, FTS5 search, trust scores, entities). No network.',
    create: (ctx) => new HolographicProvider({ config: ctx.config, home: ctx.home, nativeBinding: ctx.nativeBinding })
  },
  mem0: {
    description:
      'Mem0 memory: the Mem0 platform (MEM0_API_KEY in .env; plugins.mem0.base_url its API address) or a self-hosted server (mem0.json host / MEM0_HOST).',
    create: (ctx) => new Mem0Provider({ config: ctx.config, secrets: ctx.secrets, home: ctx.home })
  }
}

/** Upstream plugins Caduceus has no implementation of. */
export const UNSUPPORTED_UPSTREAM = [
  'honcho',
  'supermemory',
  'hindsight',
  'byterover',
  'retaindb',
  'openviking'
] as const

const VALID_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

export async function loadMemoryProvider(name: string, ctx: ProviderContext): Promise<MemoryProvider> {
  const refused = whyNotLoadable(name, ctx)
  if (refused) throw new ProviderLoadError(`${refused}; continuing with built-in memory only.`)
  const builtin = BUILTIN[name]
  if (builtin) return builtin.create(ctx)
  return loadPlugin(name, findPlugin(name, ctx)!, ctx)
}

/** Why `name` names nothing this host can load (null: one of Caduceus's own providers, or a JS plugin folder). */
function whyNotLoadable(name: string, ctx: ProviderContext): string | null {
  if (!VALID_NAME.test(name) || name.includes('..'))
    return `Memory provider '${name.slice(0, 64)}' is not a valid provider name`
  if (BUILTIN[name] || findPlugin(name, ctx)) return null
  if ((UNSUPPORTED_UPSTREAM as readonly string[]).includes(name))
    return `Memory provider '${name}' is not supported by Caduceus`
  // Upstream's own way to install one: <home>/plugins/<name>/__init__.py, a Python module this host cannot run.
  if (isUpstreamPythonPlugin(name, ctx))
    return `Memory provider '${name}' is an upstream Python memory plugin, which Caduceus cannot run`
  return `Memory provider '${name}' is not installed (no built-in provider or plugin of that name)`
}

/**
 * What the next agent build will make of `name`, told now without building one (the Memory page's picker): not
 * available, with the reason that build would warn with (not supported, not installed, no API key…), or available;
 * null where only running a JS plugin's own code could tell.
 */
export function providerAvailability(
  name: string,
  ctx: ProviderContext
): { available: boolean; detail: string | null } | null {
  const refused = whyNotLoadable(name, ctx)
  if (refused) return { available: false, detail: `${refused}.` }
  const builtin = BUILTIN[name]
  if (!builtin) return null
  try {
    const p = builtin.create(ctx)
    const problem = p.isAvailable() === true ? p.setupProblem() : ''
    // Available by its own check, but its configuration is one it refuses at start (upstream's plugin takes it and
    // fails in initialize): the picker says so now, not the first turn.
    if (problem) return { available: false, detail: `Memory provider '${name}' will not start: ${problem}` }
    if (p.isAvailable() === true) return { available: true, detail: null }
    const why = p.unavailableReason()
    return { available: false, detail: why ? `Memory provider '${name}' is unavailable (${why}).` : null }
  } catch (err) {
    return { available: false, detail: `Memory provider '${name}' could not be set up: ${errorMessage(err)}` }
  }
}

/**
 * The profile's `plugins/<name>/__init__.py` that upstream would take for a memory plugin: its first 8 KiB
 * name `register_memory_provider` or `MemoryProvider` (upstream's own test before it imports the module).
 */
function isUpstreamPythonPlugin(name: string, ctx: Pick<ProviderContext, 'home'>): boolean {
  try {
    const head = readFileSync(join(ctx.home, 'plugins', name, '__init__.py'), 'utf8').slice(0, 8192)
    return head.includes('register_memory_provider') || head.includes('MemoryProvider')
  } catch {
    return false // no such file, or one that cannot be read: upstream could not import it either
  }
}

export interface ProviderChoice {
  name: string
  kind: 'builtin' | 'plugin' | 'unsupported'
  description: string
  version?: string
}

/** Everything the picker can offer for one profile. */
export function listProviderChoices(
  ctx: Pick<ProviderContext, 'home' | 'root'>,
  pluginNames: string[]
): ProviderChoice[] {
  const out: ProviderChoice[] = Object.entries(BUILTIN).map(([name, b]) => ({
    name,
    kind: 'builtin',
    description: b.description
  }))
  for (const name of pluginNames) {
    if (BUILTIN[name] || !VALID_NAME.test(name)) continue
    const dir = findPlugin(name, ctx)
    if (!dir) continue
    try {
      const m = readManifest(dir, name)
      out.push({ name, kind: 'plugin', description: m.description, version: m.version })
    } catch (err) {
      out.push({ name, kind: 'plugin', description: (err as ProviderLoadError).userMessage ?? 'invalid plugin' })
    }
  }
  for (const name of UNSUPPORTED_UPSTREAM)
    out.push({ name, kind: 'unsupported', description: 'Upstream plugin, not supported by Caduceus.' })
  return out
}

/** The agent-cache signature's view of configured providers (seed 001), one per host. */
export function providerIdentities(): ProviderIdentities {
  return new ProviderIdentities({
    builtin: (name) => (BUILTIN[name] ? (ctx) => BUILTIN[name]!.create({ ...ctx, nativeBinding: undefined }) : null),
    valid: (name) => VALID_NAME.test(name) && !name.includes('..')
  })
}
