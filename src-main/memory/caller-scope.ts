/**
 * Memory caller scope (seed 000, hermes-spec §4.4): every memory tool call and lifecycle hook belongs to
 * the calling turn's profile. On a multiplexed host all profiles' turns share one process, so a provider
 * call is only allowed when the caller's scope proves it comes from the profile the manager was bound to.
 *
 * The model sees a generic refusal (no codes, no paths: a home path is a username and a profile list);
 * the log keeps the code and both homes for whoever runs `caduceus logs errors`.
 */
import { currentSecretScope, getHomeOverride, homeKey, isMultiplexActive } from '../scope'
import { CALLER_SCOPE_LOGGER, memoryLogger, type MemoryLogger } from './log'

export const REFUSAL_CODE = 'memory_caller_profile_unresolved'
export const INSTANCE_SHARED_CODE = 'memory_provider_instance_shared'
export const INSTANCE_UNTRACKABLE_CODE = 'memory_provider_instance_untrackable'
export const REFUSAL_MESSAGE =
  'Memory call refused: the memory provider could not confirm which profile this call belongs to. ' +
  'Run `caduceus logs errors` for details.'

/** Where refusals go when the caller passes no logger (a bare script): stderr. */
const unattached = memoryLogger(CALLER_SCOPE_LOGGER)

/** How a home's identity is worked out (realpath by default); a manager may be given its own. */
export type HomeKeyFn = (home: string) => string

export interface ScopeOwner {
  /** Home as given to `initialize` (what providers see as `hermesHome`). */
  readonly home: string
  /** Normalized identity of that home, computed once. */
  readonly key: string
}

/** The owner's key is computed once, here; per call only the caller's key is worked out (seed 000). */
export function bindOwner(home: string, keyOf: HomeKeyFn = homeKey): ScopeOwner {
  return { home, key: keyOf(home) }
}

export type RefusalReason = 'foreign_scope' | 'unresolved' | 'unscoped'
export type CallerVerdict = { ok: true; callerHome: string | null } | { ok: false; reason: RefusalReason }

/** The caller's home as its scope proves it: home override, else the secret scope's profile home. */
export function resolveCallerHome(): string | null {
  return getHomeOverride() ?? currentSecretScope()?.profileHome ?? null
}

const REASON_TEXT: Record<RefusalReason, string> = {
  foreign_scope: "the caller's profile scope is not the profile this memory manager serves",
  unresolved: 'multiplexing is on and this memory manager was never bound to a profile',
  unscoped: 'multiplexing is on and the call carries no profile scope (no home override, no secret scope)'
}

/**
 * Decide whether a call from the current async context may reach providers bound to `owner`.
 * Single-profile processes keep working unscoped; an explicit scope is always honoured.
 */
export function checkCaller(
  owner: ScopeOwner | null,
  subject: string,
  keyOf: HomeKeyFn = homeKey,
  log: MemoryLogger = unattached
): CallerVerdict {
  const callerHome = resolveCallerHome()
  const multiplexed = isMultiplexActive()
  if (callerHome === null)
    return multiplexed ? refuse('unscoped', subject, null, owner, log) : { ok: true, callerHome: null }
  if (owner === null)
    return multiplexed ? refuse('unresolved', subject, callerHome, owner, log) : { ok: true, callerHome }
  if (keyOf(callerHome) !== owner.key) return refuse('foreign_scope', subject, callerHome, owner, log)
  return { ok: true, callerHome }
}

function refuse(
  reason: RefusalReason,
  subject: string,
  callerHome: string | null,
  owner: ScopeOwner | null,
  log: MemoryLogger
): CallerVerdict {
  log.error(
    `${REFUSAL_CODE}: refused ${subject}: ${REASON_TEXT[reason]} (caller home: ${callerHome ?? '<none>'}; owner home: ${owner?.home ?? '<unbound>'})`,
    { code: REFUSAL_CODE, subject }
  )
  return { ok: false, reason }
}

/** Error thrown where a refusal must fail closed (required pre-compress checkpoint). */
export class MemoryCallRefusedError extends Error {
  constructor() {
    super(REFUSAL_MESSAGE)
    this.name = 'MemoryCallRefusedError'
  }
}

export const refusalResult = (): string => JSON.stringify({ error: REFUSAL_MESSAGE })

// Identity, not equality, decides ownership: two value-equal instances are two providers.
const claims = new WeakMap<object, ScopeOwner>()

function isTrackable(instance: unknown): instance is object {
  if (instance === null || (typeof instance !== 'object' && typeof instance !== 'function')) return false
  // A provider may declare itself untrackable (e.g. a proxy over a native handle that can't be keyed).
  return (instance as { claimable?: unknown }).claimable !== false
}

/**
 * Bind a provider instance to one profile home. True when it is free or already that home's; false when
 * another home owns it, or (multiplexed only) when it can't be tracked at all — fail closed.
 */
export function claimInstance(instance: unknown, ownerHome: string, log: MemoryLogger = unattached): boolean {
  if (!isTrackable(instance)) {
    if (!isMultiplexActive()) return true
    log.error(
      `${INSTANCE_UNTRACKABLE_CODE}: a memory provider instance that cannot be tracked was refused for ${ownerHome} (multiplexing is on)`,
      { code: INSTANCE_UNTRACKABLE_CODE, subject: 'provider' }
    )
    return false
  }
  const key = homeKey(ownerHome)
  const existing = claims.get(instance)
  if (!existing) {
    claims.set(instance, { home: ownerHome, key })
    return true
  }
  if (existing.key === key) return true
  const name = String((instance as { name?: unknown }).name ?? 'unknown')
  log.error(
    `${INSTANCE_SHARED_CODE}: memory provider '${name}' instance already serves ${existing.home}; refused for ${ownerHome}`,
    { code: INSTANCE_SHARED_CODE, subject: `provider ${name}` }
  )
  return false
}

/** Forget a claim (provider shut down for good). */
export function releaseInstance(instance: unknown, ownerHome: string): void {
  if (!isTrackable(instance)) return
  const existing = claims.get(instance)
  if (existing && existing.key === homeKey(ownerHome)) claims.delete(instance)
}
