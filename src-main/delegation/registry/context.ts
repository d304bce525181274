/**
 * What every registry function runs against: one profile's state.db, a clock, the current profile and
 * the retention limits. Bound once per store by `createDelegationRegistry`.
 */
import { getHermesHome, profileNameForHome } from '../../scope'
import type { SessionStore } from '../../store'
import { homeOfDb, retentionLimits } from '../config'
import type { DelegationDb, RetentionLimits } from '../types'
import type { LogFn } from '@shared/contract/log'
import { parseJsonOr } from '@shared/contract/errors'

export interface RegistryOptions {
  /** Profile key of the calling scope (upstream `_current_owner_profile`); `''` when unknown. */
  currentProfile?: () => string
  /**
   * The root the host serves, which names the scope's profile (`<root>/profiles/<name>`, or `default` for the root
   * itself). Without it, the process's default root: whichever host set it last, so another host's root in a
   * process with two.
   */
  root?: string
  /** Retention limits; defaults to `<home>/config.yaml` `delegation.*`. */
  limits?: () => RetentionLimits
  /** Epoch seconds. */
  now?: () => number
  log?: LogFn
}

export interface RegistryCtx {
  /** Typed SQL on `async_delegations`; write functions take the handle `write()` passes to its callback. */
  repo: ReturnType<SessionStore['delegationRepo']>
  write: DelegationDb['write']
  home: string
  now(): number
  currentProfile(): string
  limits(): RetentionLimits
  log: LogFn
}

/** Profile of the active scope, derived from its home under `root`; `''` on any doubt (upstream returns "" on failure). */
export function scopeProfile(root?: string): string {
  try {
    return (profileNameForHome(getHermesHome(), root) ?? '').trim()
  } catch {
    return '' // any doubt (above)
  }
}

export function createRegistryCtx(store: DelegationDb, opts: RegistryOptions = {}): RegistryCtx {
  const home = homeOfDb(store.path)
  return {
    repo: store.delegationRepo(),
    write: (fn) => store.write(fn),
    home,
    now: opts.now ?? (() => Date.now() / 1000),
    currentProfile: () => {
      try {
        return (opts.currentProfile ? opts.currentProfile() : scopeProfile(opts.root)).trim()
      } catch {
        return '' // any doubt, as scopeProfile
      }
    },
    limits: opts.limits ?? (() => retentionLimits(home)),
    log: opts.log ?? (() => {})
  }
}

/** JSON.parse that never throws; returns `fallback` on bad input. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback
  return parseJsonOr(text, fallback) as T
}

/** JSON text, or null for undefined/null. Never throws (cycles become null). */
export function toJson(value: unknown): string | null {
  if (value === undefined || value === null) return null
  try {
    return JSON.stringify(value)
  } catch {
    return null // TypeError: a cycle or a BigInt (above)
  }
}
