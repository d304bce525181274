/**
 * API-server settings (hermes-channels §1): `API_SERVER_*` from the process env first, then the profile's
 * `.env`. On loopback with no key, one is generated into the profile `.env` (0600) so the server is never
 * open; on any other host a missing key refuses the start.
 */
import { randomBytes } from 'node:crypto'
import { secretsFor, configFiles } from '../config'

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
}

export class ApiServerConfigError extends Error {}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

export function resolveApiServerSettings(
  home: string,
  overrides: { host?: string; port?: number } = {}
): ApiServerSettings {
  const file = secretsFor(home)
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
        `refusing to serve on ${host} without API_SERVER_KEY: set it in ${configFiles.env(home)} or the environment`
      )
    }
    key = `hk_${randomBytes(24).toString('base64url')}`
    configFiles.updateEnv(configFiles.env(home), 'API_SERVER_KEY', key)
    keyGenerated = true
  }
  const corsOrigins = get('API_SERVER_CORS_ORIGINS')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return { host, port, key, keyGenerated, modelName: get('API_SERVER_MODEL_NAME') || DEFAULT_API_MODEL, corsOrigins }
}
