/**
 * API-server settings (hermes-channels §1): `API_SERVER_*` from the process env first, then the profile's
 * `.env`. On loopback with no key, one is generated into the profile `.env` (0600) so the server is never
 * open; on any other host a missing key refuses the start. A key under 16 characters or a placeholder is
 * refused on every host, loopback included (as upstream: the endpoint runs terminal-capable agents).
 */
import { randomBytes } from 'node:crypto'
import { isPlainObject, loadConfig, readSection } from '../config'
import { envPath, secretsFor, updateEnvFile, type SecretVault } from '../secrets'

export const DEFAULT_API_HOST = '127.0.0.1'
export const DEFAULT_API_PORT = 8642
export const DEFAULT_API_MODEL = 'hermes-agent'

export interface ApiServerSettings {
  host: string
  port: number
  key: string
  /** True when the key was generated into `.env` by this start (print it once). */
  keyGenerated: boolean
  modelName: string
  corsOrigins: string[]
  /** `gateway.api_server.max_concurrent_runs` in config.yaml (default 10, 0 = no cap). */
  maxConcurrentRuns: number
  /** Upstream's `platforms.api_server.extra.model_routes`: a request's `model` alias → the model (and endpoint) it runs. */
  modelRoutes: Record<string, ModelRoute>
  /** What in the config could not be used (printed once at start). */
  notes: string[]
}

export interface ModelRoute {
  model: string
  provider?: string
  baseUrl?: string
}

export const MIN_KEY_LENGTH = 16
export const DEFAULT_MAX_CONCURRENT_RUNS = 10
const PLACEHOLDERS = new Set([
  'changeme',
  'change-me',
  'change_me',
  'placeholder',
  'example',
  'dummy',
  'secret',
  'password',
  'null',
  'none',
  'your_api_key',
  'your-api-key',
  'your_api_key_here',
  'your-api-key-here',
  'api_server_key',
  'your_api_server_key',
  'replace_me',
  'replace-me',
  'xxxxxxxxxxxxxxxx'
])

/** Why this key must not guard the server, or null when it may. */
export function weakKeyReason(key: string): string | null {
  const k = key.trim()
  if (k.length < MIN_KEY_LENGTH) return `API_SERVER_KEY is shorter than ${MIN_KEY_LENGTH} characters`
  if (PLACEHOLDERS.has(k.toLowerCase()) || /^(.)\1*$/.test(k) || /^<.*>$/.test(k))
    return 'API_SERVER_KEY is a placeholder'
  return null
}

function maxConcurrentRuns(home: string): number {
  const gw = readSection(loadConfig(home).raw, 'gateway')
  const api = isPlainObject(gw.api_server) ? gw.api_server : {}
  const raw = api.max_concurrent_runs
  const n = typeof raw === 'string' && raw.trim() ? Number(raw) : raw
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.floor(n)) : DEFAULT_MAX_CONCURRENT_RUNS
}

/**
 * Upstream's route table, read as upstream reads it: entries without a `model` are dropped with a note. A route's
 * `api_key` is not taken from config.yaml (keys live in `.env`): the route runs with the key the profile's secrets
 * give its provider, and the start says so.
 */
function modelRoutes(home: string): { modelRoutes: Record<string, ModelRoute>; notes: string[] } {
  const platforms = readSection(loadConfig(home).raw, 'platforms')
  const api = isPlainObject(platforms.api_server) ? platforms.api_server : {}
  const raw = isPlainObject(api.extra) ? api.extra.model_routes : undefined
  const out: Record<string, ModelRoute> = {}
  const notes: string[] = []
  if (!isPlainObject(raw)) return { modelRoutes: out, notes: raw ? ['model_routes ignored: not a mapping'] : [] }
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim())
  for (const [alias, cfg] of Object.entries(raw)) {
    const name = alias.trim()
    const model = isPlainObject(cfg) ? str(cfg.model) : ''
    if (!name || !model) {
      notes.push(`model_routes: route ${JSON.stringify(alias)} has no model; dropped`)
      continue
    }
    const c = cfg as Record<string, unknown>
    out[name] = {
      model,
      ...(str(c.provider) ? { provider: str(c.provider) } : {}),
      ...(str(c.base_url) ? { baseUrl: str(c.base_url) } : {})
    }
    if (str(c.api_key))
      notes.push(`model_routes: ${name}'s api_key is not read from config.yaml; the provider's key in .env is used`)
  }
  return { modelRoutes: out, notes }
}

export class ApiServerConfigError extends Error {}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

export function resolveApiServerSettings(
  home: string,
  vault: SecretVault,
  overrides: { host?: string; port?: number } = {}
): ApiServerSettings {
  const file = secretsFor(home, vault)
  const get = (name: string) => (process.env[name] ?? file[name] ?? '').trim()
  const host = overrides.host ?? (get('API_SERVER_HOST') || DEFAULT_API_HOST)
  const portText =
    overrides.port !== undefined ? String(overrides.port) : get('API_SERVER_PORT') || String(DEFAULT_API_PORT)
  const port = Number(portText)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ApiServerConfigError(`API_SERVER_PORT must be an integer 0-65535, got ${portText}`)
  let key = get('API_SERVER_KEY')
  let keyGenerated = false
  if (!key) {
    if (!isLoopbackHost(host)) {
      throw new ApiServerConfigError(
        `refusing to serve on ${host} without API_SERVER_KEY: set it in ${envPath(home)} or the environment`
      )
    }
    key = `hk_${randomBytes(24).toString('base64url')}`
    updateEnvFile(envPath(home), 'API_SERVER_KEY', key)
    keyGenerated = true
  }
  const weak = weakKeyReason(key)
  if (weak)
    throw new ApiServerConfigError(
      `refusing to start: ${weak}; set a strong one (e.g. \`openssl rand -hex 32\`) in ${envPath(home)} or the environment`
    )
  const corsOrigins = get('API_SERVER_CORS_ORIGINS')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return {
    host,
    port,
    key,
    keyGenerated,
    modelName: get('API_SERVER_MODEL_NAME') || DEFAULT_API_MODEL,
    corsOrigins,
    maxConcurrentRuns: maxConcurrentRuns(home),
    ...modelRoutes(home)
  }
}
