import { describe, expect, it } from 'vitest'
import { coalescedLoader } from './coalesce'

describe('coalescedLoader', () => {
  it('runs once for a burst of calls, plus exactly one trailing pass', async () => {
    let passes = 0
    let release!: () => void
    const load = coalescedLoader(async () => {
      passes++
      if (passes === 1) await new Promise<void>((r) => (release = r))
    })
    const first = load()
    const burst = [load(), load(), load()]
    expect(burst.every((p) => p === first)).toBe(true)
    release()
    await Promise.all([first, ...burst])
    expect(passes).toBe(2)
    await load()
    expect(passes).toBe(3)
  })
})

describe('coalescedLoader edges', () => {
  it('a call landing right after the last pass finished starts a new load (no lost trailing pass)', async () => {
    let passes = 0
    const load = coalescedLoader(async () => {
      passes++
    })
    const first = load()
    await first
    await load()
    expect(passes).toBe(2)
  })

  it('a load orphaned by reset never clears the next one', async () => {
    const gates: Array<() => void> = []
    const load = coalescedLoader(() => new Promise<void>((r) => gates.push(r)))
    const stale = load()
    load.reset()
    const fresh = load()
    gates[0]!() // the orphaned load finishes while the fresh one is still running
    await stale
    expect(load()).toBe(fresh) // still shared: the stale finish did not clear it
    gates[1]!()
    while (gates.length < 3) await Promise.resolve() // the trailing pass that the shared call asked for
    gates[2]!()
    await fresh
    expect(gates).toHaveLength(3)
  })
})
