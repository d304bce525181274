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
let processMultiplex = false

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

/** Process-wide flag, set once when the host serves several profiles. */
export function setMultiplexActive(active: boolean): void {
  processMultiplex = active
}

export function isMultiplexActive(): boolean {
  return processMultiplex
}

/**
 * Bind fn to the async context captured NOW (upstream `ctx_bound`): work handed to a queue or timer
 * runs in its submitter's profile scope, not whatever scope is current when it finally runs.
 */
export function ctxBound<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const snapshot = AsyncLocalStorage.snapshot()
  return (...args: A) => snapshot(() => fn(...args))
}
