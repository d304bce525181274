import { AsyncLocalStorage } from 'node:async_hooks'
import { resolve } from 'node:path'
import { getDefaultRoot } from './homes'

export interface SecretScope {
  /** Home whose `.env` these secrets came from; proves the profile of a turn without a home override. */
  profileHome: string
  secrets: Readonly<Record<string, string>>
}

interface ScopeState {
  homeOverride?: string
  secretScope?: SecretScope
}

const als = new AsyncLocalStorage<ScopeState>()
/** How many profiles each live host of this process serves (see `claimProfiles`). */
const served = new Map<symbol, number>()

const current = (): ScopeState => als.getStore() ?? {}
const withState = <T>(patch: ScopeState, fn: () => T): T => als.run({ ...current(), ...patch }, fn)

export function withHomeOverride<T>(home: string, fn: () => T): T {
  return withState({ homeOverride: resolve(home) }, fn)
}

export function getHomeOverride(): string | null {
  return current().homeOverride ?? null
}

/** Override → $HERMES_HOME → the default root. */
export function getHermesHome(): string {
  const override = current().homeOverride
  if (override) return override
  return process.env.HERMES_HOME ? resolve(process.env.HERMES_HOME) : getDefaultRoot()
}

export function withSecretScope<T>(scope: SecretScope, fn: () => T): T {
  return withState({ secretScope: { profileHome: resolve(scope.profileHome), secrets: scope.secrets } }, fn)
}

export function currentSecretScope(): SecretScope | null {
  return current().secretScope ?? null
}

/** One host's share of the profiles this process serves: `count` as its profiles come and go, `release` on close. */
export interface ProfileClaim {
  count(profiles: number): void
  release(): void
}

/**
 * Upstream's multiplex flag is the process's, and it has to be: the guard reads it for calls that carry no scope (a
 * provider's own timer, a plugin's module code), which cannot say which host they came from. So each host claims the
 * profiles it serves and the process is multiplexed while they add up to more than one — two hosts of one profile
 * each serve two profiles as much as one host of two does. Each host counts only its own share, so a host serving one
 * profile no longer switches off the guard of another serving several (a single flag was whatever the last host set).
 */
export function claimProfiles(): ProfileClaim {
  const key = Symbol('host')
  return {
    count: (profiles) => void served.set(key, profiles),
    release: () => void served.delete(key)
  }
}

export function isMultiplexActive(): boolean {
  let total = 0
  for (const n of served.values()) total += n
  return total > 1
}

/**
 * Bind fn to the async context captured NOW (upstream `ctx_bound`): work handed to a queue or timer
 * runs in its submitter's profile scope, not whatever scope is current when it finally runs.
 */
export function ctxBound<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const snapshot = AsyncLocalStorage.snapshot()
  return (...args: A) => snapshot(() => fn(...args))
}
