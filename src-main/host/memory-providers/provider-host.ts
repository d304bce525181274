/**
 * The host side of memory providers: one loader context per agent build, start-up warnings shown once
 * per profile and provider, the last load outcome per profile (Memory page), the provider identity and
 * the tool-registry generation the agent-cache signature reads (seed 001).
 */
import { loadConfig, readSection } from '../../config'
import type { MemoryIdentitySource } from '../../gateway'
import {
  ProviderCatalog,
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
  private readonly catalog: ProviderCatalog

  constructor(private readonly opts: { root: string; nativeBinding?: string; log: Logger; hub: MemoryActivityHub }) {
    this.catalog = new ProviderCatalog({ root: opts.root, nativeBinding: opts.nativeBinding })
  }

  loader(
    profile: string,
    home: string,
    config: Record<string, unknown>,
    secrets: Readonly<Record<string, string>>
  ): LoadMemoryProvider {
    return this.catalog.loader(profile, home, config, secrets)
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

  /**
   * The provider the Memory page shows as configured: `memory.provider` as written (the name a turn looks up, spaces
   * and all, as upstream's does); null when unset or blank.
   */
  configured(home: string): string | null {
    const name = readSection(loadConfig(home).raw, 'memory').provider
    return typeof name === 'string' && name.trim() ? name : null
  }

  /**
   * Whether the next turn can use the configured provider, told without building an agent (null when none is
   * configured, or only loading a JS plugin could tell): the picker says "unavailable" and why instead of promising it.
   */
  availability(profile: string, home: string, secrets: Readonly<Record<string, string>>) {
    const name = this.configured(home)
    if (!name || name === 'builtin') return null
    return this.catalog.availability(name, profile, home, loadConfig(home).raw, secrets)
  }

  /** Before a turn's signature: load the configured plugin's identity instance (once per version). */
  async prepare(profile: string, home: string): Promise<void> {
    const config = loadConfig(home).raw
    const name = configuredProvider(config)
    if (name) await this.catalog.loadIdentity(name, profile, home, config)
  }

  /** Signature input: where the configured provider comes from and its own `identitySignature()`. */
  identityFor(name: string, scope?: { profile: string; home: string }): Record<string, unknown> {
    if (!scope) return {}
    return this.catalog.identity(name, scope.profile, scope.home, loadConfig(scope.home).raw)
  }

  /**
   * Tool-registry generation for a profile: bumps whenever a memory plugin appears, disappears or its
   * files change (tools can change with no config edit), so cached agents rebuild with the new tools.
   */
  registryGeneration(profile: string, home: string): number {
    const stamp = this.catalog.pluginsStamp(home)
    const prev = this.generations.get(profile)
    if (prev && prev.stamp === stamp) return prev.gen
    const gen = ++this.generationCounter
    this.generations.set(profile, { stamp, gen })
    return gen
  }

  /** What the provider picker can offer the profile at `home`. */
  choices(home: string) {
    return this.catalog.choices(home)
  }
}
