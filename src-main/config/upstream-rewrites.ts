/**
 * What upstream's load_config does to config.yaml's values after parsing, so every reader here sees what upstream's
 * readers see: a root `max_turns` moves to `agent.max_turns`; the legacy model keys (`model.name`, `model.model`,
 * `model.api_base`, root `provider` / `base_url` / `context_length` / `api_base`) fill `model.*` when the canonical
 * key is empty and are dropped; `${VAR}` in any string value is replaced from the environment (a name that is not
 * set stays as written). Only reads are rewritten: Settings edits the file as the user wrote it (see
 * `modelFieldPath`), never writing expanded values or moved keys back.
 */
import { carryFloatMarks } from '@shared/contract/py-text'

type RawConfig = Record<string, unknown>

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Python truthiness of a YAML value (the legacy-key migration only moves non-empty values). */
const truthy = (v: unknown): boolean =>
  Array.isArray(v) ? v.length > 0 : isPlainObject(v) ? Object.keys(v).length > 0 : Boolean(v)

/** load_config's root `max_turns` step and `_normalize_root_model_keys`. */
export function normaliseLegacyKeys(input: RawConfig): RawConfig {
  let config = input
  if ('max_turns' in config) {
    const agent = isPlainObject(config.agent) ? carryFloatMarks(config.agent, { ...config.agent }) : {}
    if (agent.max_turns === null || agent.max_turns === undefined) agent.max_turns = config.max_turns
    config = carryFloatMarks(config, { ...config, agent })
    delete config.max_turns
  }
  const modelIn = config.model
  const modelHasAlias = isPlainObject(modelIn) && truthy(modelIn.api_base)
  const modelNeedsCanon = isPlainObject(modelIn) && (truthy(modelIn.model) || truthy(modelIn.name))
  const hasRoot = ['provider', 'base_url', 'context_length', 'api_base'].some((k) => truthy(config[k]))
  if (!hasRoot && !modelHasAlias && !modelNeedsCanon) return config

  config = carryFloatMarks(config, { ...config })
  const model: Record<string, unknown> = isPlainObject(modelIn)
    ? carryFloatMarks(modelIn, { ...modelIn })
    : truthy(modelIn)
      ? { default: modelIn }
      : {}
  config.model = model
  for (const key of ['provider', 'base_url', 'context_length']) {
    if (truthy(config[key]) && !truthy(model[key])) model[key] = config[key]
    delete config[key]
  }
  for (const alias of [config.api_base, model.api_base])
    if (truthy(alias) && !truthy(model.base_url)) model.base_url = alias
  delete config.api_base
  delete model.api_base
  if (!truthy(model.default ?? '')) {
    const alias = truthy(model.model) ? model.model : model.name
    if (truthy(alias)) model.default = alias
  }
  if (truthy(model.default)) {
    delete model.model
    delete model.name
  }
  return config
}

const ENV_REF = /\$\{([^}]+)\}/g

/** `_expand_env_vars`: string values only (keys, numbers and booleans as they are, a float's mark too); an unset name stays `${NAME}`. */
export function expandEnvRefs(value: unknown, env: (name: string) => string | undefined): unknown {
  if (typeof value === 'string') return value.replace(ENV_REF, (ref, name: string) => env(name) ?? ref)
  if (Array.isArray(value))
    return carryFloatMarks(
      value,
      value.map((v) => expandEnvRefs(v, env))
    )
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = expandEnvRefs(v, env)
    return carryFloatMarks(value, out)
  }
  return value
}

/** Every `${NAME}` the config's string values mention (what an expansion depends on). */
export function envRefNames(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const m of value.matchAll(ENV_REF)) into.add(m[1])
  else if (Array.isArray(value)) for (const v of value) envRefNames(v, into)
  else if (isPlainObject(value)) for (const v of Object.values(value)) envRefNames(v, into)
  return into
}

export type ModelField = 'default' | 'provider' | 'base_url' | 'api_mode'

/**
 * The key in the file (as PyYAML reads it, before any rewrite) that upstream takes a model field from, so a Settings
 * save changes that key and leaves the rest as written: `model: {name: X}` gets a new `name`, a root `provider:` a
 * new root `provider:`, and a field set nowhere becomes `model.<field>`.
 */
export function modelFieldPath(file: RawConfig, field: ModelField): string[] {
  const model = file.model
  if (typeof model === 'string' && truthy(model) && field === 'default') return ['model']
  const m = isPlainObject(model) ? model : {}
  const canonical = ['model', field]
  if (field === 'default') {
    if (truthy(m.default)) return canonical
    if (truthy(m.model)) return ['model', 'model']
    if (truthy(m.name)) return ['model', 'name']
    return canonical
  }
  if (truthy(m[field])) return canonical
  if (field === 'provider' && truthy(file.provider)) return ['provider']
  if (field === 'base_url') {
    if (truthy(file.base_url)) return ['base_url']
    if (truthy(file.api_base)) return ['api_base']
    if (truthy(m.api_base)) return ['model', 'api_base']
  }
  return canonical
}
