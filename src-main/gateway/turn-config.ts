/**
 * What a turn is built from — secrets, runtime, config, signature, per-turn settings — resolved on the
 * cache-hit path of every turn. The file-derived part is memoized on the stat stamps of `config.yaml` and
 * `.env` (two `stat`s per turn instead of a YAML walk, an env copy and a SHA-256); the parts that can
 * change without a file edit (registry generation, memory identity, toolsets, a non-file vault) are
 * re-read every turn and only the final hash is memoized on them.
 */
import { statSync } from 'node:fs'
import { agentSettings, configPath, loadConfig, resolveRuntime, type RawConfig, type ResolvedRuntime } from '../config'
import { envPath, secretsFor, type SecretVault } from '../secrets'
import { dynamicCacheBustingConfig, staticCacheBustingConfig, type MemoryIdentitySource } from './cache-busting'
import type { ReasoningSetting } from './gateway-types'
import { agentConfigSignature } from './signature'
import { stableJson } from './stable-json'

/** Each upstream program's turn budget (config/turn-budget.ts). */
type TurnBudgets = ReturnType<typeof agentSettings>['budgets']

/**
 * The budget a turn on this channel gets: the API server reads it as upstream's gateway does, cron as its scheduler,
 * the Session page and one-shot runs as its interactive chat (upstream's `-z` passes none and always gets 90; here a
 * one-shot run keeps the profile's setting, as a chat turn does).
 */
export function budgetFor(budgets: TurnBudgets, source: string): TurnBudgets['chat'] {
  return source === 'api_server' || source === 'tool'
    ? budgets.gateway
    : source === 'cron'
      ? budgets.cron
      : budgets.chat
}

export interface TurnConfig {
  /** A fresh copy per call (callers may keep it, e.g. as a release scope). */
  secrets: Record<string, string>
  /** Shared between turns of an unchanged profile: read-only (copy before handing it to an agent). */
  runtime: ResolvedRuntime
  config: RawConfig
  signature: string
  /** The turn budget each channel reads (config/turn-budget.ts): pick with `budgetFor`. */
  budgets: TurnBudgets
  reasoningConfig: ReasoningSetting | null
  /** The `memory.*` inputs of the signature (provider, where it comes from, its own identity): a rebuild's "why". */
  memoryInputs: Record<string, unknown>
}

export interface TurnConfigDeps {
  /** The host's vault (the profile's `.env`, or the OS keychain in the app). */
  vault: SecretVault
  registryGeneration?(profile: string): number | null
  memoryIdentity?: MemoryIdentitySource
  enabledToolsets?(profile: string, config: RawConfig): string[]
}

interface FileDerived {
  stamp: string
  secrets: Readonly<Record<string, string>>
  runtime: ResolvedRuntime
  config: RawConfig
  staticKeys: Record<string, unknown>
  budgets: TurnBudgets
  reasoningConfig: ReasoningSetting | null
  /** Last dynamic inputs and the signature (and memory inputs) they produced. */
  dynamicKey: string | null
  signature: string
  memoryInputs: Record<string, unknown>
}

const memoryPart = (keys: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(keys).filter(([k]) => k.startsWith('memory.')))

/**
 * The config module's own memo keys on the same fields: a rewrite moves mtime/ctime (and a temp-file +
 * rename, the app's way, moves the inode). Float ms rather than bigint ns: file times only tick at the
 * kernel's coarse clock anyway, and the bigint stat costs more on this per-turn path.
 */
function stampOf(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false })
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : '-'
  } catch (err) {
    // Unstattable (EACCES, ENOTDIR): the readers below report it; keep the memo keyed on the failure.
    return `!${(err as { code?: string })?.code ?? 'error'}`
  }
}

export class TurnConfigResolver {
  private readonly memo = new Map<string, FileDerived>()
  constructor(private readonly deps: TurnConfigDeps) {}

  resolve(profile: string, home: string): TurnConfig {
    const vault = this.deps.vault
    // Stamp BEFORE reading: an edit racing the read leaves a stale stamp, so the next turn re-reads.
    let stamp = `${stampOf(configPath(home))}|${stampOf(envPath(home))}`
    // A non-file vault (OS keychain) can change with no file touched: its values are part of the key.
    let vaultSecrets: Record<string, string> | null = null
    if (vault.storage !== 'env_file') {
      vaultSecrets = secretsFor(home, vault)
      stamp += `|${stableJson(vaultSecrets)}`
    }
    let f = this.memo.get(home)
    if (!f || f.stamp !== stamp) {
      f = this.readFiles(home, vault, stamp, vaultSecrets)
      this.memo.set(home, f)
    }
    // A broken config.yaml fails the turn before any hook runs (the caller throws on configError).
    if (f.runtime.configError) return this.out(f)
    const toolsets = this.deps.enabledToolsets?.(profile, f.config) ?? []
    const dynamic = dynamicCacheBustingConfig(f.config, {
      registryGeneration: () => this.deps.registryGeneration?.(profile) ?? null,
      memoryIdentity: this.deps.memoryIdentity,
      scope: { profile, home }
    })
    const dynamicKey = stableJson([dynamic, toolsets])
    if (f.dynamicKey !== dynamicKey) {
      f.signature = agentConfigSignature({
        model: f.runtime.model,
        runtime: f.runtime,
        enabledToolsets: toolsets,
        ephemeralPrompt: '',
        cacheKeys: { ...f.staticKeys, ...dynamic },
        skipContextFiles: false
      })
      f.dynamicKey = dynamicKey
      f.memoryInputs = { ...memoryPart(f.staticKeys), ...memoryPart(dynamic) }
    }
    return this.out(f)
  }

  private out(f: FileDerived): TurnConfig {
    return {
      secrets: { ...f.secrets },
      runtime: f.runtime,
      config: f.config,
      signature: f.signature,
      budgets: f.budgets,
      reasoningConfig: f.reasoningConfig ? { ...f.reasoningConfig } : null,
      memoryInputs: f.memoryInputs
    }
  }

  private readFiles(
    home: string,
    vault: SecretVault,
    stamp: string,
    vaultSecrets: Record<string, string> | null
  ): FileDerived {
    const secrets = Object.freeze(vaultSecrets ?? secretsFor(home, vault))
    const runtime = resolveRuntime(home, { vault, secrets: { ...secrets } })
    const config = loadConfig(home).raw
    // HERMES_MAX_ITERATIONS from the profile's .env over the process's, as upstream loads them
    const { budgets, reasoningEffort } = agentSettings(config, { ...process.env, ...secrets })
    return {
      stamp,
      secrets,
      runtime,
      config,
      staticKeys: staticCacheBustingConfig(config),
      budgets,
      reasoningConfig: reasoningEffort ? { enabled: reasoningEffort !== 'none', effort: reasoningEffort } : null,
      dynamicKey: null,
      signature: '',
      memoryInputs: {}
    }
  }
}
