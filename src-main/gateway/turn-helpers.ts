/** Small pure helpers of the turn runner: input validation, guarded row reads, cost mapping. */
import { CaduceusError } from '@shared/contract'
import { isDemoConfig, readSection, type RawConfig } from '../config'
import type { GatewayStore } from './gateway-types'
import { isBusy } from '../store'

export function parseInput<T>(
  schema: {
    safeParse(
      v: unknown
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ message: string; path: PropertyKey[] }> } }
  },
  input: unknown
): T {
  const r = schema.safeParse(input)
  if (r.success) return r.data
  const issue = r.error.issues[0]
  throw new CaduceusError('invalid_input', issue.message, issue.path.map(String).join('.') || undefined)
}

/**
 * A row read that never throws and ignores async stores (the guard needs a synchronous answer). Uses the
 * store's two-column `sessionCounters` when it has one: this runs on every turn's cache-hit path.
 */
export function readRow(
  store: GatewayStore,
  sid: string
): { messageCount?: unknown; endedAt?: unknown; rewindCount?: unknown } | null {
  try {
    const row = typeof store.sessionCounters === 'function' ? store.sessionCounters(sid) : store.getSession(sid)
    return row && typeof (row as { then?: unknown }).then !== 'function' ? row : null
  } catch (err) {
    // A database locked by another program is not a missing session: let the caller say it is locked.
    if (isBusy(err)) throw err
    return null
  }
}

export function countOf(row: { messageCount?: unknown } | null): number | null {
  if (!row) return null
  const n = Number(row.messageCount ?? 0)
  return Number.isFinite(n) ? n : null
}

/** The row's rewind_count, or null when the store or the home does not give one. */
export function rewindsOf(row: { rewindCount?: unknown } | null): number | null {
  if (!row || row.rewindCount === null || row.rewindCount === undefined) return null
  const n = Number(row.rewindCount)
  return Number.isFinite(n) ? n : null
}

/**
 * Why this turn's model cannot take the images it was sent, or null when it can. Both provider wires carry images
 * (OpenAI-compatible `image_url` parts, Anthropic image blocks); what cannot is the keyless demo model and a model
 * the profile declares text-only with upstream's `model.supports_vision: false`.
 */
export function imageRefusal(
  runtime: { provider: string; model: string },
  config: RawConfig,
  model: string | undefined
): string | null {
  const name = model || runtime.model
  if (runtime.provider === 'demo' || isDemoConfig(config))
    return `the demo model cannot take images; send text parts only, or configure a vision-capable provider`
  const v = readSection(config, 'model').supports_vision
  if (v === false || (typeof v === 'string' && /^(false|no|off|0)$/i.test(v.trim())))
    return `the model ${name} cannot take images (config.yaml model.supports_vision: false); send text parts only`
  return null
}
