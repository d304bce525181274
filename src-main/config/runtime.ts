/**
 * Resolve what a turn talks to: model, provider, base URL, key and wire protocol, from the profile's
 * config.yaml and secrets. The result holds the key: never log it (use `redact`).
 */
import { urlCredentialValues } from '@shared/contract'
import { loadConfig, type ConfigError } from './load-config'
import { modelSettings, readSection } from './settings-schema'
import { compressionPlan, type CompressionPlan } from './compression'
import { envFileProblem, envPath, secretsFor, type SecretVault } from '../secrets'
import { parseUrl } from '@shared/contract/errors'

export type ApiMode = 'chat_completions' | 'anthropic_messages'

export interface ResolvedRuntime {
  model: string
  provider: string
  baseUrl: string
  apiKey: string
  apiMode: ApiMode
  /** The provider as written in config (`auto` when absent); part of the cache signature. */
  requestedProvider: string
  /** Boolean provider capabilities only (non-bool entries are dropped). */
  capabilities: Record<string, boolean>
  /** The secret name the key was (or would be) read from ('' when none names it: a local endpoint). */
  apiKeyEnv: string
  /** Where the key is (or a new one goes): the secrets (`apiKeyEnv`), or config.yaml's model.api_key. */
  apiKeyFrom: 'env' | 'config'
  contextLength: number | null
  /**
   * The context window the agent assumes: config.yaml's model.context_length, else upstream's fallback for a model
   * no lookup knows (256k tokens; golden soul-truncate). Caduceus has no model metadata of its own, so an unstated
   * length is always the fallback. SOUL.md's limit scales with it, as upstream's does with its compressor's length.
   */
  contextWindow: number
  maxTokens: number | null
  /**
   * config.yaml's `compression` applied to this window and max_tokens as upstream's agent applies it (compression.ts):
   * what the agent compresses by, and what the Settings page shows.
   */
  compression: CompressionPlan
  configError: ConfigError | null
}

export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4'
const FALLBACK_CONTEXT_WINDOW = 256_000

const PROVIDER_BASE_URL: Record<string, string> = {
  openrouter: 'https://openrouter.ai/api/v1',
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com'
}
const PROVIDER_KEY_ENV: Record<string, string> = {
  openrouter: 'OPENROUTER_API_KEY',
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY'
}

/** Placeholder text people leave in a key's place: upstream skips it and looks further down its chain. */
const PLACEHOLDER_KEYS = new Set([
  '*',
  '**',
  '***',
  'changeme',
  'your_api_key',
  'your_api_key_here',
  'your-api-key',
  'placeholder',
  'example',
  'dummy',
  'null',
  'none'
])
/** A key worth sending: 4+ characters that are not a placeholder (upstream's rule for a custom endpoint's chain). */
const usableSecret = (v: string | null | undefined): boolean =>
  typeof v === 'string' && v.trim().length >= 4 && !PLACEHOLDER_KEYS.has(v.trim().toLowerCase())

/** upstream's host gate: the URL's host is `domain` or one of its subdomains (never a path or a lookalike). */
function hostMatches(url: string, domain: string): boolean {
  const host = parseUrl(url)?.hostname.toLowerCase().replace(/\.$/, '')
  return host !== undefined && (host === domain || host.endsWith(`.${domain}`))
}

/**
 * The key named after an endpoint's host, as upstream derives it: the registrable label (api./www. dropped) in
 * upper case + `_API_KEY` (api.deepseek.com → DEEPSEEK_API_KEY); none for an IP, localhost, a single label, or the
 * providers whose keys have their own host gate.
 */
export function hostKeyEnv(url: string): string {
  const host = parseUrl(url)?.hostname.toLowerCase()
  if (host === undefined) return ''
  const labels = host.split('.').filter(Boolean)
  if (!labels.length || /\d/.test(labels.at(-1)!) || host === 'localhost' || host.includes(':')) return ''
  while (labels.length && (labels[0] === 'api' || labels[0] === 'www')) labels.shift()
  if (labels.length < 2) return ''
  const vendor = labels
    .at(-2)!
    .replace(/[^\p{L}\p{N}]/gu, '_')
    .toUpperCase()
  if (!/^\p{L}/u.test(vendor) || ['OPENAI', 'OPENROUTER', 'OLLAMA'].includes(vendor)) return ''
  return `${vendor}_API_KEY`
}

/** The secrets upstream reads for a custom endpoint, in its order: the host-gated provider keys, then the host's. */
function customKeyEnvs(url: string): string[] {
  const out: string[] = []
  if (hostMatches(url, 'ollama.com')) out.push('OLLAMA_API_KEY')
  if (hostMatches(url, 'openai.com') || hostMatches(url, 'openai.azure.com')) out.push('OPENAI_API_KEY')
  if (hostMatches(url, 'openrouter.ai')) out.push('OPENROUTER_API_KEY')
  const own = hostKeyEnv(url)
  if (own) out.push(own)
  return out
}

function providerFromUrl(url: string): string | null {
  const host = parseUrl(url)?.hostname
  if (host === undefined) return null
  if (host.endsWith('openrouter.ai')) return 'openrouter'
  if (host.endsWith('anthropic.com')) return 'anthropic'
  if (host.endsWith('openai.com')) return 'openai'
  return 'custom'
}

function pickProvider(requested: string | null, baseUrl: string | null, secrets: Record<string, string>): string {
  if (requested && requested !== 'auto') return requested.toLowerCase()
  const fromUrl = baseUrl ? providerFromUrl(baseUrl) : null
  if (fromUrl) return fromUrl
  if (secrets.OPENROUTER_API_KEY) return 'openrouter'
  if (secrets.ANTHROPIC_API_KEY && !secrets.OPENAI_API_KEY) return 'anthropic'
  if (secrets.OPENAI_API_KEY) return 'openai'
  return 'openrouter'
}

/**
 * A job that names another provider or endpoint talks to it with that provider's key, not the profile's
 * endpoint or key-env (which belong to the profile's own provider).
 */
function withOverride<M extends ReturnType<typeof modelSettings>>(m: M, o: RuntimeOverride | undefined): M {
  const provider = o?.provider?.trim() || null
  const baseUrl = o?.baseUrl?.trim() || null
  if (!provider && !baseUrl) return m
  const changesProvider = provider !== null && provider.toLowerCase() !== (m.provider ?? '').toLowerCase()
  return {
    ...m,
    // An endpoint alone: its provider is read from the URL (an unknown host is `custom`).
    provider: provider ?? (baseUrl ? null : m.provider),
    baseUrl: baseUrl ?? (changesProvider ? null : m.baseUrl),
    ...(changesProvider ? { apiKeyEnv: null, apiKey: null, apiMode: null } : {})
  }
}

const sameOrigin = (a: string, b: string): boolean => {
  const [x, y] = [parseUrl(a), parseUrl(b)]
  return x !== null && y !== null && x.origin === y.origin
}

/** The endpoint the profile's own settings talk to (where its key belongs). */
function ownBaseUrl(m: ReturnType<typeof modelSettings>, secrets: Record<string, string>): string {
  return m.baseUrl ?? PROVIDER_BASE_URL[pickProvider(m.provider, m.baseUrl, secrets)] ?? ''
}

/** Keep only boolean capabilities (upstream filters what reaches a gateway agent). */
export function filterCapabilities(caps: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const [k, v] of Object.entries(caps)) if (typeof v === 'boolean') out[k] = v
  return out
}

/** A cron job's own `provider` / `base_url` (upstream job fields), in place of the profile's. */
export interface RuntimeOverride {
  provider?: string | null
  baseUrl?: string | null
}

/** Where the key comes from: the host's vault, or the secrets a caller already read from it. */
type RuntimeSecrets = {
  /** The host's vault: its mask learns the key, a base URL's password and the `.env` values config.yaml takes. */
  vault: SecretVault
  secrets?: Record<string, string>
}

/** Model fields a Settings update is about to write: resolved as if config.yaml already held them. */
export interface PendingModelEdit {
  provider?: string
  baseUrl?: string
}

export function resolveRuntime(
  home: string,
  opts: RuntimeSecrets & { override?: RuntimeOverride; pending?: PendingModelEdit }
): ResolvedRuntime {
  const loaded = loadConfig(home)
  const written = modelSettings(loaded.raw)
  const base = {
    ...written,
    ...(opts.pending?.provider !== undefined ? { provider: opts.pending.provider || null } : {}),
    ...(opts.pending?.baseUrl !== undefined ? { baseUrl: opts.pending.baseUrl || null } : {})
  }
  const m = withOverride(base, opts.override)
  const secrets = opts.secrets !== undefined ? opts.secrets : secretsFor(home, opts.vault)
  const provider = pickProvider(m.provider, m.baseUrl, secrets)
  const baseUrl = m.baseUrl ?? PROVIDER_BASE_URL[provider] ?? ''
  const apiMode: ApiMode =
    m.apiMode === 'anthropic_messages' || m.apiMode === 'chat_completions'
      ? m.apiMode
      : provider === 'anthropic'
        ? 'anthropic_messages'
        : 'chat_completions'
  let apiKeyEnv: string
  let apiKey: string
  let keyFrom: ResolvedRuntime['apiKeyFrom']
  if (PROVIDER_KEY_ENV[provider] && (!m.baseUrl || sameOrigin(baseUrl, PROVIDER_BASE_URL[provider]!))) {
    // An official provider's own secret only: upstream never sends config.yaml's model.api_key to one (it is a
    // custom endpoint's key; after a provider switch it would be another vendor's), golden custom_keys.py.
    apiKeyEnv = m.apiKeyEnv ?? PROVIDER_KEY_ENV[provider]!
    apiKey = secrets[apiKeyEnv] ?? ''
    keyFrom = 'env'
  } else {
    // Any other endpoint takes upstream's custom-endpoint chain (#28660): config.yaml's model.api_key, else only the
    // key whose provider owns that host, else a key named after the host (api.deepseek.com → DEEPSEEK_API_KEY). A
    // provider key never goes to someone else's host, and a key saved here lands where upstream will read it.
    const gated = customKeyEnvs(baseUrl)
    const named = m.apiKeyEnv ? [m.apiKeyEnv, ...gated] : gated
    const found = named.find((n) => usableSecret(secrets[n]))
    const own = usableSecret(m.apiKey) ? m.apiKey!.trim() : ''
    apiKey = own || (found ? secrets[found]!.trim() : '')
    keyFrom = own ? 'config' : found ? 'env' : named.length ? 'env' : 'config'
    apiKeyEnv = found ?? named[0] ?? ''
  }
  if (opts.override && !sameOrigin(baseUrl, ownBaseUrl(base, secrets))) {
    // A job on another endpoint (jobs.json can be written by an agent's tool) gets a key only from the official
    // host of the provider that key belongs to: never the profile's key, never a provider key on a foreign host.
    const official = PROVIDER_BASE_URL[provider]
    apiKeyEnv = official && sameOrigin(baseUrl, official) ? PROVIDER_KEY_ENV[provider]! : ''
    apiKey = apiKeyEnv ? (secrets[apiKeyEnv] ?? '') : ''
    keyFrom = 'env'
  }
  const contextWindow = m.contextLength ?? FALLBACK_CONTEXT_WINDOW
  // A base URL's own password (`https://user:pass@proxy/v1`) is a secret too: masked wherever it is echoed.
  opts.vault.mask.remember([apiKey, ...urlCredentialValues(baseUrl), ...(loaded.envValues ?? [])])
  return {
    model: m.default ?? DEFAULT_MODEL,
    provider,
    baseUrl,
    apiKey,
    apiMode,
    requestedProvider: m.provider ?? 'auto',
    capabilities: filterCapabilities(m.capabilities),
    apiKeyEnv,
    apiKeyFrom: keyFrom,
    contextLength: m.contextLength,
    contextWindow,
    maxTokens: m.maxTokens,
    compression: compressionPlan(readSection(loaded.raw, 'compression'), contextWindow, m.maxTokens),
    configError: loaded.error ?? envError(home)
  }
}

/** The profile's .env there but unreadable: as broken a start as a config.yaml that cannot be read (envFileProblem). */
function envError(home: string): ConfigError | null {
  const message = envFileProblem(home)
  return message ? { code: 'unreadable_env', path: envPath(home), message } : null
}
