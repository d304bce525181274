/**
 * A loader that never runs twice at once: calls made while a load runs share it, and ask for exactly one
 * trailing pass, so a burst of live events costs at most two fetches and the last one sees the newest state.
 */
export interface CoalescedLoader {
  (): Promise<void>
  reset(): void
}

export function coalescedLoader(pass: () => Promise<void>): CoalescedLoader {
  let current: Promise<void> | null = null
  let again = false
  let generation = 0
  const run = async (mine: number) => {
    try {
      do {
        again = false
        await pass()
      } while (again && mine === generation)
    } finally {
      // Cleared in the same tick the loop decides to stop: a call arriving after that starts a new load
      // instead of flagging a trailing pass nobody will run. A load orphaned by reset() clears nothing.
      if (mine === generation) current = null
    }
  }
  const load = (() => {
    if (current) {
      again = true
      return current
    }
    current = run(generation)
    return current
  }) as CoalescedLoader
  load.reset = () => {
    generation++
    current = null
    again = false
  }
  return load
}
