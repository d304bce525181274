/**
 * Why a cached agent was rebuilt, in words for the turn's badge, when the memory side of the signature
 * explains it: the configured provider changed, the provider's own identity changed (e.g. its writer
 * alice → bob), or a plugin's code changed. The signature itself is a hash, so the gateway compares
 * the `memory.*` inputs each agent was built with. Values are shortened and the profile's secret values
 * redacted: nothing a key could be read back from reaches the renderer.
 */
import { redactValues, type SecretMask } from '../secrets'
import { stableJson } from './stable-json'

/** Where a provider comes from (its plugin folder, manifest version, files' stamp) rather than who it is. */
const SOURCE_KEYS = new Set(['memory.source', 'memory.version', 'memory.files'])
const PROVIDER_KEY = 'memory.provider'
const MAX_VALUE = 40
const MAX_CHANGES = 3

/** The turn's secret values, and the mask that hides them with its host's own (the process's last resort without one). */
interface Hidden {
  secrets: readonly string[]
  mask?: Pick<SecretMask, 'redactValues'>
}

function shown(v: unknown, hide: Hidden): string {
  if (v === undefined || v === null) return 'none'
  const raw = typeof v === 'string' ? v : stableJson(v)
  const text = hide.mask ? hide.mask.redactValues(raw, hide.secrets) : redactValues(raw, hide.secrets)
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text
}

export function memoryRebuildReason(
  prev: Record<string, unknown> | null | undefined,
  next: Record<string, unknown>,
  secrets: Hidden = { secrets: [] }
): string | undefined {
  if (!prev) return undefined
  const same = (k: string) => stableJson(prev[k] ?? null) === stableJson(next[k] ?? null)
  if (!same(PROVIDER_KEY))
    return `memory provider changed (${shown(prev[PROVIDER_KEY], secrets)} → ${shown(next[PROVIDER_KEY], secrets)})`
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(next)])].sort()
  const own = keys.filter((k) => k !== PROVIDER_KEY && !SOURCE_KEYS.has(k) && !same(k))
  if (own.length === 1) {
    const k = own[0]!
    return `memory provider identity changed (${shown(prev[k], secrets)} → ${shown(next[k], secrets)})`
  }
  if (own.length > 1) {
    const parts = own
      .slice(0, MAX_CHANGES)
      .map((k) => `${k.slice('memory.'.length)}: ${shown(prev[k], secrets)} → ${shown(next[k], secrets)}`)
    const more = own.length > MAX_CHANGES ? `, +${own.length - MAX_CHANGES} more` : ''
    return `memory provider identity changed (${parts.join(', ')}${more})`
  }
  if (!same('memory.version'))
    return `memory plugin updated (${shown(prev['memory.version'], secrets)} → ${shown(next['memory.version'], secrets)})`
  if (!same('memory.source') || !same('memory.files')) return 'memory plugin files changed'
  return undefined
}
