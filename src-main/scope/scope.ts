import { AsyncLocalStorage } from 'node:async_hooks'
import { resolve } from 'node:path'
import { getDefaultRoot } from './homes'

export interface SecretScope {
  /** Home whose `.env` these secrets came from; proves the profile of a turn without a home override. */
  profileHome: string
  secrets: Readonly<Record<string, string>>
}

interface ScopeState {
  /** undefined = never set here; null = explicitly cleared (masks the env). */
  homeOverride?: string | null
  secretScope?: SecretScope
  multiplex?: boolean
}

const als = new AsyncLocalStorage<ScopeState>()
let processMultiplex = false

const current = (): ScopeState => als.getStore() ?? {}
const withState = <T>(patch: ScopeState, fn: () => T): T => als.run({ ...current(), ...patch }, fn)

export function withHomeOverride<T>(home: string, fn: () => T): T {
  return withState({ homeOverride: resolve(home) }, fn)
}

/** Run with the override explicitly cleared (upstream `set_hermes_home_override(None)`). */
export function withoutHomeOverride<T>(fn: () => T): T {
  return withState({ homeOverride: null }, fn)
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

/** Enter a profile's full scope: home override plus secret scope (upstream `_profile_runtime_scope`). */
export function runInProfileScope<T>(home: string, secrets: Readonly<Record<string, string>>, fn: () => T): T {
  return withState({ homeOverride: resolve(home), secretScope: { profileHome: resolve(home), secrets } }, fn)
}

/** Process-wide flag, set once when the host serves several profiles. */
export function setMultiplexActive(active: boolean): void {
  processMultiplex = active
}

/** Context-local override of the multiplex flag (tests; hosts use setMultiplexActive). */
export function withMultiplex<T>(active: boolean, fn: () => T): T {
  return withState({ multiplex: active }, fn)
}

export function isMultiplexActive(): boolean {
  return current().multiplex ?? processMultiplex
}

class UnscopedSecretError extends Error {
  constructor(name: string) {
    super(`getSecret('${name}') called with no profile secret scope active while multiplexing is on.`)
    this.name = 'UnscopedSecretError'
  }
}

const GLOBAL_ENV = new Set(['HERMES_HOME', 'HERMES_PROFILE', 'PATH', 'HOME'])

/** Secret lookup with upstream semantics: scoped under multiplex, never falling through to another profile's env. */
export function getSecret(name: string, fallback?: string): string | undefined {
  if (GLOBAL_ENV.has(name)) return process.env[name] ?? fallback
  const scope = current().secretScope
  if (scope) {
    if (name in scope.secrets) return scope.secrets[name]
    return isMultiplexActive() ? fallback : (process.env[name] ?? fallback)
  }
  if (isMultiplexActive()) throw new UnscopedSecretError(name)
  return process.env[name] ?? fallback
}

/**
 * Bind fn to the async context captured NOW (upstream `ctx_bound`): work handed to a queue or timer
 * runs in its submitter's profile scope, not whatever scope is current when it finally runs.
 */
export function ctxBound<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const snapshot = AsyncLocalStorage.snapshot()
  return (...args: A) => snapshot(() => fn(...args))
}
