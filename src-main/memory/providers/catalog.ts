/**
 * The external memory providers one Hermes root offers its profiles: loading the configured one for an agent
 * build, the identity the agent-cache signature reads (seed 001), the plugin folders a profile sees with the
 * stamp of their files, and the picker's choices. The host holds one per graph and adds what is the host's:
 * warnings shown once, the last load per profile, the registry generation.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { LoadMemoryProvider } from '../agent-build'
import { hookTimeoutMs, withTimeout } from '../manager-support'
import { listProviderChoices, loadMemoryProvider, providerAvailability, providerIdentities } from './index'
import { PLUGIN_DIR, findPlugin, pluginStamp } from './plugins'
import type { ProviderContext } from './types'

export class ProviderCatalog {
  private readonly identities = providerIdentities()

  constructor(private readonly opts: { root: string; nativeBinding?: string }) {}

  /** What an agent build calls with the configured provider's name. */
  loader(
    profile: string,
    home: string,
    config: Record<string, unknown>,
    secrets: Readonly<Record<string, string>>
  ): LoadMemoryProvider {
    const ctx: ProviderContext = {
      home,
      root: this.opts.root,
      profile,
      config,
      secrets,
      nativeBinding: this.opts.nativeBinding
    }
    return (name) => loadMemoryProvider(name, ctx)
  }

  /**
   * Load a plugin's identity instance (once per version of its files); async, so it runs before a signature.
   * Bounded like every other call into a plugin: one whose load never settles has no identity (the agent
   * build then reports it and goes on without it) instead of holding every turn of the profile.
   */
  async loadIdentity(name: string, profile: string, home: string, config: Record<string, unknown>): Promise<void> {
    await withTimeout(this.identities.load(name, this.identityContext(profile, home, config)), hookTimeoutMs())
  }

  /** Whether the next agent build can use `name` for the profile, and why not (see providerAvailability). */
  availability(
    name: string,
    profile: string,
    home: string,
    config: Record<string, unknown>,
    secrets: Readonly<Record<string, string>>
  ): { available: boolean; detail: string | null } | null {
    return providerAvailability(name, { home, root: this.opts.root, profile, config, secrets })
  }

  /** Signature input: where the provider comes from and its own `identitySignature()`. */
  identity(name: string, profile: string, home: string, config: Record<string, unknown>): Record<string, unknown> {
    return this.identities.identity(name, this.identityContext(profile, home, config))
  }

  private identityContext(profile: string, home: string, config: Record<string, unknown>): ProviderContext {
    return { home, root: this.opts.root, profile, config, secrets: {} }
  }

  /** Names of the plugin folders visible to a profile (its own, then the root's). */
  pluginNames(home: string): string[] {
    const names = new Set<string>()
    for (const base of new Set([home, this.opts.root])) {
      try {
        for (const d of readdirSync(join(base, PLUGIN_DIR), { withFileTypes: true }))
          if (d.isDirectory()) names.add(d.name)
      } catch {
        // No plugin folder: nothing to list.
      }
    }
    return [...names].sort()
  }

  /** Each visible plugin with the stamp of its entry files: changes when a plugin appears, goes or is edited. */
  pluginsStamp(home: string): string {
    return this.pluginNames(home)
      .map((n) => {
        const dir = findPlugin(n, { home, root: this.opts.root })
        return `${n}=${dir ? pluginStamp(dir, 'index.mjs') + pluginStamp(dir, 'index.js') : '-'}`
      })
      .join(';')
  }

  /** Everything the picker can offer the profile at `home`. */
  choices(home: string) {
    return listProviderChoices({ home, root: this.opts.root }, this.pluginNames(home))
  }
}
