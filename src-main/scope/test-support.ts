/**
 * Tests run a body as a multiplexed host would: the host claims the profiles it serves (host/services/services.ts),
 * so tests claim two for the body and release them after, sync or async. Vitest runs a file's tests one at a time.
 */
import { claimProfiles } from './scope'

export function multiplexed<T>(fn: () => T): T {
  const claim = claimProfiles()
  claim.count(2)
  let out: T
  try {
    out = fn()
  } catch (e) {
    claim.release()
    throw e
  }
  if (out instanceof Promise) return out.finally(() => claim.release()) as T
  claim.release()
  return out
}
