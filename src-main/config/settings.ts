/**
 * Renderer-facing provider settings. Reading never returns the key (only whether one is set); writing
 * changes only the edited values' bytes in config.yaml (yaml-edit.ts), so other keys, comments and spellings survive, and
 * puts the key in the profile's vault (`.env`, 0600, by default).
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { CaduceusError, SettingsUpdate, maskUrlCredentials, type ProfileSettings } from '@shared/contract'
import { profileNameForHome } from '../scope'
import { configPath, configProblem, isPlainObject, loadConfig } from './load-config'
import { parsePyYaml } from './py-yaml'
import { modelFieldPath, type ModelField } from './upstream-rewrites'
import { rewriteConfigFile, type YamlEdit } from './yaml-edit'
import { secretsFor, type SecretVault } from '../secrets'
import { resolveRuntime } from './runtime'
import { agentSettings, isDemoConfig, busyInputMode } from './settings-schema'
import { parseUrl } from '@shared/contract/errors'

export interface SettingsOptions {
  profile?: string
  /** The host's vault: where the API key is read from and written to. */
  vault: SecretVault
}

const profileOf = (home: string, explicit?: string) => explicit ?? profileNameForHome(home) ?? basename(home)

export function readSettings(home: string, opts: SettingsOptions): ProfileSettings {
  const vault = opts.vault
  const raw = loadConfig(home).raw
  const secrets = secretsFor(home, vault) // read once: the runtime and the turn budget both read them
  const rt = resolveRuntime(home, { vault, secrets })
  const keySet = rt.apiKey.length > 0
  const agent = agentSettings(raw, { ...process.env, ...secrets })
  const inVault = rt.apiKeyFrom === 'env' && vault.storage !== 'env_file' && Boolean(vault.read(home)[rt.apiKeyEnv])
  return {
    profile: profileOf(home, opts.profile),
    provider: rt.provider,
    // A password in the base URL is a secret like the key: the renderer sees `user:***@`.
    baseUrl: maskUrlCredentials(rt.baseUrl),
    model: rt.model,
    apiMode: rt.apiMode,
    apiKeySet: keySet,
    apiKeyStorage: !keySet ? 'none' : rt.apiKeyFrom === 'config' ? 'config' : inVault ? 'safe_storage' : 'env_file',
    // the Session page's budget; null: no limit (`.inf`, or more calls than a number here can count)
    maxIterations: ((n) => (n <= Number.MAX_SAFE_INTEGER ? n : null))(agent.maxIterations),
    // where compression really starts: the agent's own plan for this window (runtime.ts), not the configured share
    compression: {
      enabled: rt.compression.enabled,
      configuredThreshold: rt.compression.configuredThreshold,
      triggerTokens: rt.compression.triggerTokens,
      contextWindow: rt.compression.contextLength,
      maxTokens: rt.compression.maxTokens,
      adjustments: rt.compression.adjustments
    },
    busyInputMode: busyInputMode(raw),
    demo: isDemoConfig(raw) || rt.provider === 'demo',
    ...unknownWhenBroken(home)
  }
}

/**
 * A config.yaml that cannot be read says nothing of the endpoint: the defaults resolveRuntime stands in with are not
 * this profile's settings, so the answer names the problem and leaves provider, base URL and model empty.
 */
function unknownWhenBroken(home: string): Partial<ProfileSettings> {
  const problem = configProblem(home)
  return problem ? { provider: '', baseUrl: '', model: '', demo: false, configError: problem } : {}
}

// A URL whose userinfo is the mask readSettings puts in place of a password (`user:***@`, `***@`).
const MASKED_USERINFO = /^\s*[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/(?:[^/?#\s@]*:)?\*\*\*@/

const UpdateFields = SettingsUpdate.omit({ profile: true })
export type SettingsPatch = Omit<SettingsUpdate, 'profile'> & { profile?: string }

export function writeSettings(home: string, patch: SettingsPatch, opts: SettingsOptions): ProfileSettings {
  const parsed = UpdateFields.safeParse(patch)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new CaduceusError('invalid_input', issue.message, issue.path.join('.') || undefined)
  }
  const update = parsed.data
  const vault = opts.vault
  if (update.apiKey) vault.mask.remember([update.apiKey])
  if (update.baseUrl !== undefined && MASKED_USERINFO.test(update.baseUrl)) {
    // The form shows a base URL's password masked. Sent back unchanged it is no edit; edited around the mask, the
    // literal `***` would replace the password (or the password would follow the URL elsewhere): ask for it again.
    if (update.baseUrl !== maskUrlCredentials(resolveRuntime(home, { vault }).baseUrl))
      throw new CaduceusError(
        'invalid_input',
        'This base URL carries a password shown as ***: type the whole URL again, password included.',
        'baseUrl'
      )
    delete update.baseUrl
  }
  if ((update.baseUrl !== undefined || update.provider !== undefined) && update.apiKey === undefined) {
    // The saved key must not follow the endpoint to a server it was never meant for. The check is on the endpoint
    // the update resolves to (a provider switch alone moves it too: the renderer sends only changed fields): a new
    // base URL on another origin, or any switch that would send the same key to another origin, needs the key
    // typed again (or cleared with an empty key).
    const current = resolveRuntime(home, { vault })
    const next = resolveRuntime(home, { vault, pending: { provider: update.provider, baseUrl: update.baseUrl } })
    const from = originOf(current.baseUrl)
    const to = originOf(next.baseUrl)
    if (current.apiKey && from !== to && (update.baseUrl !== undefined || next.apiKey === current.apiKey)) {
      throw new CaduceusError(
        'invalid_input',
        `Moving this profile to ${to ?? 'another server'} needs its API key again: the saved key is only sent to ${from ?? 'the server it was saved for'}. Enter the key for the new endpoint, or clear it.`,
        'apiKey'
      )
    }
  }
  const path = configPath(home)
  const fields: Array<[ModelField, string | undefined]> = [
    ['default', update.model],
    ['provider', update.provider],
    ['base_url', update.baseUrl],
    ['api_mode', update.apiMode]
  ]
  const edits: YamlEdit[] = []
  if (fields.some(([, v]) => v !== undefined)) {
    // Each field is written where upstream reads it from (a legacy `model.name` or root `provider:` keeps its place).
    const file = fileAsWritten(path)
    for (const [key, value] of fields) if (value !== undefined) edits.push({ path: modelFieldPath(file, key), value })
  }
  if (update.busyInputMode !== undefined) {
    edits.push({ path: ['display', 'busy_input_mode'], value: update.busyInputMode })
    // Upstream still honours the legacy knob when it is set: keep it from overriding the choice made here.
    const display = fileAsWritten(path).display
    if (isPlainObject(display) && 'busy_text_mode' in display)
      edits.push({
        path: ['display', 'busy_text_mode'],
        value: update.busyInputMode === 'queue' ? 'queue' : 'interrupt'
      })
  }
  if (edits.length) rewriteConfigFile(path, edits, 'settings')
  if (update.apiKey !== undefined) {
    // The key goes where upstream reads it for the (possibly just changed) endpoint: the secret named for it, or
    // config.yaml's model.api_key (a local endpoint names no secret; a key already there is read before any secret).
    const rt = resolveRuntime(home, { vault, secrets: secretsFor(home, vault) })
    const model = fileAsWritten(path).model
    const written = isPlainObject(model) && typeof model.api_key === 'string' ? model.api_key : null
    // `api_key: ${NAME}` names the secret the key lives in: the key goes there, and the reference stays as written.
    const named = written !== null ? /^\s*\$\{([A-Za-z_][A-Za-z0-9_]*)\}\s*$/.exec(written)?.[1] : undefined
    const value = update.apiKey === '' ? null : update.apiKey
    if (named) vault.write(home, named, value)
    else if (rt.apiKeyFrom === 'env' && rt.apiKeyEnv) vault.write(home, rt.apiKeyEnv, value)
    // A key written into config.yaml makes it a secrets file: never readable by group or others afterwards.
    else rewriteConfigFile(path, [{ path: ['model', 'api_key'], value }], 'settings', { secret: value !== null })
  }
  return readSettings(home, { ...opts, vault })
}

function originOf(url: string): string | null {
  return parseUrl(url)?.origin ?? null
}

/** config.yaml as PyYAML reads it, before upstream's rewrites: where each key sits in the file. */
function fileAsWritten(path: string): Record<string, unknown> {
  const doc = parsePyYaml(existsSync(path) ? readFileSync(path, 'utf8') : '')
  if (doc.errors.length) return {}
  const value: unknown = doc.toJS({ maxAliasCount: 100 })
  return isPlainObject(value) ? value : {}
}
