/**
 * Tests run a body as a multiplexed host would: the host flips the process-wide flag (host/services/services.ts),
 * so tests do the same and put it back after, sync or async. Vitest runs a file's tests one at a time.
 */
import { setMultiplexActive } from './scope'

export function multiplexed<T>(fn: () => T): T {
  setMultiplexActive(true)
  let out: T
  try {
    out = fn()
  } catch (e) {
    setMultiplexActive(false)
    throw e
  }
  if (out instanceof Promise) return out.finally(() => setMultiplexActive(false)) as T
  setMultiplexActive(false)
  return out
}
