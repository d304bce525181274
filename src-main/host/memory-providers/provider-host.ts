/**
 * The host side of memory providers: one loader context per agent build, start-up warnings shown once
 * per profile and provider, the last load outcome per profile (Memory page), the provider identity and
 * the tool-registry generation the agent-cache signature reads (seed 001).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../config'
import type { MemoryIdentitySource } from '../../gateway'
import {
  memoryProviders,
  type AgentMemory,
  type LoadMemoryProvider,
  type MemoryActivityHub,
  type StartupNotice
} from '../../memory'
import type { Logger } from '@shared/contract/log'

const configuredProvider = (config: Record<string, unknown>): string | null => {
  const m = config.memory
  const name = m && typeof m === 'object' ? (m as Record<string, unknown>).provider : null
  return typeof name === 'string' && name ? name : null
}

export interface ProviderStatus {
  provider: string | null
  state: 'none' | 'active' | 'failed' | 'unavailable' | 'refused'
  detail: string | null
  at: number
}

export class MemoryProviderHost implements MemoryIdentitySource {
  private readonly shown = new Set<string>()
  private readonly status = new Map<string, ProviderStatus>()
  private readonly generations = new Map<string, { stamp: string; gen: number }>()
  private generationCounter = 0
  private readonly identities = memoryProviders.providerIdentities()

  constructor(private readonly opts: { root: string; nativeBinding?: string; log: Logger; hub: MemoryActivityHub }) {}

  loader(
    profile: string,
    home: string,
    config: Record<string, unknown>,
    secrets: Readonly<Record<string, string>>
  ): LoadMemoryProvider {
    const ctx: memoryProviders.ProviderContext = {
      home,
      root: this.opts.root,
      profile,
      config,
      secrets,
      nativeBinding: this.opts.nativeBinding
    }
    return (name) => memoryProviders.loadMemoryProvider(name, ctx)
  }

  /**
   * After a build: remember the outcome, and return only the warnings this profile has not been shown yet
   * (a bad provider warns once per process, not on every new chat).
   */
  settle(profile: string, built: Pick<AgentMemory, 'external' | 'warnings'>): StartupNotice[] {
    const next: ProviderStatus = {
      provider: built.external?.name ?? null,
      state: built.external?.state ?? 'none',
      detail: built.warnings.map((w) => w.text).join(' ') || null,
      // Epoch seconds, like every other time the contract carries.
      at: Date.now() / 1000
    }
    const prev = this.status.get(profile)
    this.status.set(profile, next)
    if (!prev || prev.provider !== next.provider || prev.state !== next.state) {
      this.opts.hub.get(profile)?.record({
        provider: next.provider ?? 'builtin',
        kind: 'provider',
        name: 'load',
        ok: next.state === 'active' || next.state === 'none',
        sessionId: null,
        turnId: null,
        summary: next.provider
          ? `${next.provider}: ${next.state}${next.detail ? ` — ${next.detail}` : ''}`
          : 'built-in memory only'
      })
    }
    return built.warnings.filter((w) => {
      const key = `${profile}\u0000${w.text}`
      if (this.shown.has(key)) return false
      this.shown.add(key)
      this.opts.log.warn('memory', `${profile}: ${w.text}`)
      return true
    })
  }

  statusOf(profile: string): ProviderStatus | null {
    return this.status.get(profile) ?? null
  }

  /** Before a turn's signature: load the configured plugin's identity instance (once per version). */
  async prepare(profile: string, home: string): Promise<void> {
    const name = configuredProvider(loadConfig(home).raw)
    if (name) await this.identities.load(name, this.identityContext(profile, home))
  }

  /** Signature input: where the configured provider comes from and its own `identitySignature()`. */
  identityFor(name: string, scope?: { profile: string; home: string }): Record<string, unknown> {
    if (!scope) return {}
    return this.identities.identity(name, this.identityContext(scope.profile, scope.home))
  }

  private identityContext(profile: string, home: string): memoryProviders.ProviderContext {
    return { home, root: this.opts.root, profile, config: loadConfig(home).raw, secrets: {} }
  }

  /** Names of the plugin folders visible to a profile (its own, then the root's). */
  pluginNames(home: string): string[] {
    const names = new Set<string>()
    for (const base of new Set([home, this.opts.root])) {
      try {
        for (const d of readdirSync(join(base, memoryProviders.PLUGIN_DIR), { withFileTypes: true }))
          if (d.isDirectory()) names.add(d.name)
      } catch {
        // No plugin folder: nothing to list.
      }
    }
    return [...names].sort()
  }

  /**
   * Tool-registry generation for a profile: bumps whenever a memory plugin appears, disappears or its
   * files change (tools can change with no config edit), so cached agents rebuild with the new tools.
   */
  registryGeneration(profile: string, home: string): number {
    const stamp = this.pluginNames(home)
      .map((n) => {
        const dir = memoryProviders.findPluginDir(n, { home, root: this.opts.root })
        return `${n}=${dir ? memoryProviders.pluginStamp(dir, 'index.mjs') + memoryProviders.pluginStamp(dir, 'index.js') : '-'}`
      })
      .join(';')
    const prev = this.generations.get(profile)
    if (prev && prev.stamp === stamp) return prev.gen
    const gen = ++this.generationCounter
    this.generations.set(profile, { stamp, gen })
    return gen
  }

  choices(home: string): memoryProviders.ProviderChoice[] {
    return memoryProviders.listProviderChoices({ home, root: this.opts.root }, this.pluginNames(home))
  }
}
