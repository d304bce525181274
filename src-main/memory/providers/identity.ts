/**
 * What the agent-cache signature sees of a configured provider (seed 001): where it comes from (built-in,
 * or a plugin's files and version) plus the provider's own `identitySignature()`. A plugin is loaded ONCE
 * per profile and version of its files — its module import is async, so `load` runs before each
 * turn's signature — and asked for its identity on every signature: the instance is memoized, the
 * identity (e.g. a writer name it reads from its own settings) is not. Never opens a database or the
 * network: identity instances are never initialized.
 */
import type { MemoryProvider } from '../provider'
import { findPlugin, loadPlugin, pluginStamp, readManifest } from './plugins'
import type { ProviderContext } from './types'

export interface IdentityCatalog {
  /** A built-in provider's constructor (identity only: never initialized), else null. */
  builtin(name: string): ((ctx: ProviderContext) => MemoryProvider) | null
  /** Names that may be looked up as plugin folders at all. */
  valid(name: string): boolean
}

/** The hook's answer when it is a mapping; a missing or throwing hook contributes nothing. */
function ownIdentity(p: MemoryProvider | null | undefined): Record<string, unknown> {
  try {
    const id = p?.identitySignature() as unknown
    return id && typeof id === 'object' && !Array.isArray(id) ? (id as Record<string, unknown>) : {}
  } catch {
    return {} // a throwing hook contributes nothing (above)
  }
}

/** Where a plugin's code comes from: its folder, manifest version and files' stamp. */
function pluginSource(name: string, ctx: ProviderContext): Record<string, unknown> | null {
  const dir = findPlugin(name, ctx)
  if (!dir) return null
  try {
    const m = readManifest(dir, name)
    return { source: `plugin:${dir}`, version: m.version, files: pluginStamp(dir, m.main) }
  } catch {
    // a manifest that cannot be read: loading the plugin reports it; its identity is the folder and files' stamp
    return { source: `plugin:${dir}`, files: pluginStamp(dir) }
  }
}

export class ProviderIdentities {
  constructor(private readonly catalog: IdentityCatalog) {}
  private readonly memo = new Map<string, { version: string; provider: MemoryProvider | null }>()
  private readonly pending = new Map<string, Promise<void>>()

  /** Load the plugin's identity instance unless this version of its files already has one. */
  load(name: string, ctx: ProviderContext): Promise<void> {
    if (this.catalog.builtin(name) || !this.catalog.valid(name)) return Promise.resolve()
    const source = pluginSource(name, ctx)
    if (!source) return Promise.resolve()
    const slot = `${ctx.profile}\u0000${name}`
    const version = JSON.stringify(source)
    if (this.memo.get(slot)?.version === version) return Promise.resolve()
    const key = `${slot}\u0000${version}`
    let p = this.pending.get(key)
    if (!p) {
      p = loadPlugin(name, findPlugin(name, ctx)!, ctx)
        .catch(() => null)
        .then((provider) => {
          this.memo.set(slot, { version, provider })
        })
        .finally(() => this.pending.delete(key))
      this.pending.set(key, p)
    }
    return p
  }

  /** Source keys win over the provider's own, which may not impersonate them. */
  identity(name: string, ctx: ProviderContext): Record<string, unknown> {
    const builtin = this.catalog.builtin(name)
    if (builtin) {
      let own: Record<string, unknown> = {}
      try {
        own = ownIdentity(builtin(ctx))
      } catch {
        // A config the provider cannot read contributes nothing.
      }
      return { ...own, source: `builtin:${name}` }
    }
    const source = this.catalog.valid(name) ? pluginSource(name, ctx) : null
    if (!source) return { source: 'none' }
    const held = this.memo.get(`${ctx.profile}\u0000${name}`)
    const own = held && held.version === JSON.stringify(source) ? ownIdentity(held.provider) : {}
    return { ...own, ...source }
  }
}
