/**
 * Where a profile's Mem0 settings come from, in upstream's order: the `MEM0_*` variables (the profile's
 * `.env`, then the process environment) are the defaults and `<home>/mem0.json` (what `hermes memory setup`
 * writes) overrides each key it holds with a non-empty value. Caduceus's own `plugins.mem0.*` keys in
 * config.yaml only fill what neither of upstream's sources sets, so a home set up by upstream behaves the
 * same in both programs.
 */
import { join } from 'node:path'
import { errorMessage, parseJsonOr } from '@shared/contract/errors'
import { pyTruthy } from '@shared/contract/py-text'
import { isPlainObject } from '../../../config'
import { readFileIfExists } from '../../../files'

export const MEM0_CLOUD_URL = 'https://api.mem0.ai'
/** Upstream's placeholder user: read as "no user configured", so a gateway-native id can take over. */
export const MEM0_DEFAULT_USER = 'hermes-user'

export interface Mem0Settings {
  /** `platform` (cloud API, or a self-hosted server when `host` is set) or `oss` (in-process engine). */
  mode: string
  apiKey: string
  /** A self-hosted Mem0 server (its own protocol). Empty: the platform API at `cloudUrl`. */
  host: string
  /** The platform API's base URL: api.mem0.ai unless Caduceus's `plugins.mem0.base_url` names another. */
  cloudUrl: string
  /** The configured user, or null (upstream's placeholder counts as none). */
  userId: string | null
  agentId: string
  rerank: boolean
  /** mem0.json could not be parsed (upstream ignores it then; so do we, but the status says so). */
  fileError: string | null
}

export interface Mem0Sources {
  home?: string | null
  config?: Record<string, unknown> | null
  secrets?: Readonly<Record<string, string>>
  env?: Readonly<Record<string, string | undefined>>
}

export function readMem0Settings(src: Mem0Sources): Mem0Settings {
  const env = src.env ?? process.env
  // The profile's .env first (upstream loads it into its environment), then the process's own.
  const fromEnv = (k: string): string => src.secrets?.[k] ?? env[k] ?? ''
  const merged: Record<string, unknown> = {
    mode: fromEnv('MEM0_MODE') || 'platform',
    api_key: src.secrets?.MEM0_API_KEY ?? '',
    host: fromEnv('MEM0_HOST'),
    agent_id: fromEnv('MEM0_AGENT_ID') || undefined
  }
  if (fromEnv('MEM0_USER_ID')) merged.user_id = fromEnv('MEM0_USER_ID')
  let fileError: string | null = null
  if (src.home) {
    const file = readJsonFile(join(src.home, 'mem0.json'))
    if (file.error) fileError = file.error
    for (const [k, v] of Object.entries(file.value)) if (v !== null && v !== '') merged[k] = v
  }
  const plugins = isPlainObject(src.config?.plugins) ? (src.config!.plugins as Record<string, unknown>) : {}
  const own = isPlainObject(plugins.mem0) ? (plugins.mem0 as Record<string, unknown>) : {}
  const ownStr = (k: string): string => (typeof own[k] === 'string' ? (own[k] as string).trim() : '')
  const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')
  const configuredUser = str(merged.user_id) || ownStr('user_id')
  const rr = merged.rerank
  return {
    mode: str(merged.mode) || 'platform',
    apiKey: str(merged.api_key),
    host: str(merged.host).trim().replace(/\/+$/, ''),
    cloudUrl: (ownStr('base_url') || MEM0_CLOUD_URL).replace(/\/+$/, ''),
    userId: configuredUser && configuredUser !== MEM0_DEFAULT_USER ? configuredUser : null,
    agentId: str(merged.agent_id) || ownStr('agent_id') || 'hermes',
    // a word from text, else Python's bool() of the value (2, 0.5, [1] rerank; [] and {} do not), as upstream's provider
    rerank: typeof rr === 'string' ? ['true', '1', 'yes'].includes(rr.toLowerCase()) : pyTruthy(rr),
    fileError
  }
}

function readJsonFile(path: string): { value: Record<string, unknown>; error: string | null } {
  let text: string | null
  try {
    text = readFileIfExists(path)
  } catch (err) {
    // There but unreadable (a folder in its place): ignored like a malformed file, and the status says so.
    return { value: {}, error: `cannot be read (${errorMessage(err)})` }
  }
  if (text === null) return { value: {}, error: null }
  const v = parseJsonOr(text, undefined)
  if (v === undefined) return { value: {}, error: 'not valid JSON' }
  return isPlainObject(v) ? { value: v, error: null } : { value: {}, error: 'not an object' }
}
