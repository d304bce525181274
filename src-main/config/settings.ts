/**
 * Renderer-facing provider settings. Reading never returns the key (only whether one is set); writing
 * updates config.yaml in place through the yaml Document API, so other keys and comments survive, and
 * puts the key in the profile's vault (`.env`, 0600, by default).
 */
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { isMap, isScalar, parseDocument, type Document } from 'yaml'
import { CaduceusError, SettingsUpdate, type ProfileSettings } from '@shared/contract'
import { profileNameForHome } from '../scope'
import { configPath, pyYamlTags, loadConfig } from './load-config'
import { rememberSecretValues, secretsFor, type SecretVault } from '../secrets'
import { resolveRuntime } from './runtime'
import { compressionSettings, agentSettings, isDemoConfig, busyInputMode } from './settings-schema'

export interface SettingsOptions {
  profile?: string
  /** The host's vault: where the API key is read from and written to. */
  vault: SecretVault
}

const profileOf = (home: string, explicit?: string) => explicit ?? profileNameForHome(home) ?? basename(home)

export function readSettings(home: string, opts: SettingsOptions): ProfileSettings {
  const vault = opts.vault
  const raw = loadConfig(home).raw
  const rt = resolveRuntime(home, { vault })
  const keySet = rt.apiKey.length > 0
  const inVault = rt.apiKeyFrom === 'env' && vault.storage !== 'env_file' && Boolean(vault.read(home)[rt.apiKeyEnv])
  return {
    profile: profileOf(home, opts.profile),
    provider: rt.provider,
    baseUrl: rt.baseUrl,
    model: rt.model,
    apiMode: rt.apiMode,
    apiKeySet: keySet,
    apiKeyStorage: !keySet ? 'none' : rt.apiKeyFrom === 'config' ? 'config' : inVault ? 'safe_storage' : 'env_file',
    maxIterations: agentSettings(raw).maxIterations,
    compressionThreshold: compressionSettings(raw).threshold,
    busyInputMode: busyInputMode(raw),
    demo: isDemoConfig(raw) || rt.provider === 'demo'
  }
}

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
  if (update.apiKey) rememberSecretValues([update.apiKey])
  if (update.baseUrl !== undefined && update.apiKey === undefined) {
    // The saved key must not follow the base URL to a server it was never meant for: another origin needs
    // the key typed again (or cleared with an empty key).
    const current = resolveRuntime(home, { vault })
    if (current.apiKey && originOf(current.baseUrl) !== originOf(update.baseUrl)) {
      throw new CaduceusError(
        'invalid_input',
        `Moving this profile to ${originOf(update.baseUrl) ?? 'another server'} needs its API key again: the saved key is only sent to ${originOf(current.baseUrl) ?? 'the server it was saved for'}`,
        'apiKey'
      )
    }
  }
  const path = configPath(home)
  const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const doc = parseDocument(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { customTags: pyYamlTags })
  if (doc.errors.length) {
    // Never rewrite a file we could not parse: the user's edits would be lost.
    throw new CaduceusError('conflict', `config.yaml is not valid YAML (${path}); fix it before changing settings here`)
  }
  const fields: Array<[string, string | undefined]> = [
    ['default', update.model],
    ['provider', update.provider],
    ['base_url', update.baseUrl],
    ['api_mode', update.apiMode]
  ]
  let changed = false
  if (fields.some(([, v]) => v !== undefined)) {
    ensureModelMap(doc)
    for (const [key, value] of fields) if (value !== undefined) doc.setIn(['model', key], value)
    changed = true
  }
  if (update.busyInputMode !== undefined) {
    ensureMap(doc, 'display')
    doc.setIn(['display', 'busy_input_mode'], update.busyInputMode)
    // Upstream still honours the legacy knob when it is set: keep it from overriding the choice made here.
    if (doc.hasIn(['display', 'busy_text_mode']))
      doc.setIn(['display', 'busy_text_mode'], update.busyInputMode === 'queue' ? 'queue' : 'interrupt')
    changed = true
  }
  if (changed) writeAtomically(path, String(doc))
  if (update.apiKey !== undefined) {
    // The key goes where upstream reads it for the (possibly just changed) endpoint: the secret named for it, or
    // config.yaml's model.api_key (a local endpoint names no secret; a key already there is read before any secret).
    const rt = resolveRuntime(home, { vault, secrets: secretsFor(home, vault) })
    if (rt.apiKeyFrom === 'env' && rt.apiKeyEnv)
      vault.write(home, rt.apiKeyEnv, update.apiKey === '' ? null : update.apiKey)
    else {
      const again = parseDocument(readFileSync(path, 'utf8'), { customTags: pyYamlTags })
      ensureModelMap(again)
      if (update.apiKey === '') again.deleteIn(['model', 'api_key'])
      else again.setIn(['model', 'api_key'], update.apiKey)
      writeAtomically(path, String(again))
    }
  }
  return readSettings(home, { ...opts, vault })
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/** A section that is absent or not a mapping (upstream ignores one that is not) becomes an empty mapping. */
function ensureMap(doc: Document, section: string): void {
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as never
  if (!isMap(doc.get(section, true))) doc.set(section, doc.createNode({}))
}

/** `model: gpt-4` becomes `model: {default: gpt-4}` so provider/base_url can sit beside it. */
function ensureModelMap(doc: Document): void {
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as never
  const node = doc.get('model', true)
  if (isMap(node)) return
  const current = isScalar(node) && typeof node.value === 'string' && node.value ? { default: node.value } : {}
  doc.set('model', doc.createNode(current))
}

function writeAtomically(path: string, text: string): void {
  let mode = 0o644
  try {
    mode = statSync(path).mode & 0o777
  } catch {
    // New file: default mode.
  }
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text, { mode })
  chmodSync(tmp, mode)
  renameSync(tmp, path)
}
