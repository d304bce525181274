// The Memory page's provider health through real host turns: the last recall is the one the turn used
// (its question, size, duration; a failure with its reason, listed first), never the end-of-turn
// warm-up; sync counts per provider; the turn's memory events carry the turn id for its fold.
import { afterEach, describe, expect, it } from 'vitest'
import type { ProviderHealth } from '@shared/contract'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { makeRig, writePlugin, type Rig } from '../test-fixtures/memory-host'

const FLAKY = `
let n = 0
export function createProvider() {
  return {
    name: 'flaky',
    isAvailable: () => true,
    getToolSchemas: () => [],
    prefetch(q) { n++; if (n > 1) throw new Error('recall service offline'); return 'FLAKY RECALL ' + q },
    queuePrefetch() {},
    syncTurn() {}
  }
}
`

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

describe('Memory page: provider health', () => {
  it('shows the recall each turn used, and a failed one with its reason, first', async () => {
    rig = await makeRig(() => ({ text: 'ok' }))
    writePlugin(rig.root, 'flaky', FLAKY)
    rig.writeConfig('default', 'memory:\n  provider: flaky\n')
    await rig.start()
    const d = rig.host!.dispatcher
    const finished = () => rig!.events.filter((e) => e.event === 'turn.finished').length
    const say = async (text: string) => {
      const n = finished()
      expect((await d.invoke('sessions.start', { profile: 'default', text })).ok).toBe(true)
      await waitUntil(() => finished() > n)
    }
    const health = async () =>
      ((await d.invoke('memory.health', { profile: 'default' })) as { ok: true; output: { items: ProviderHealth[] } })
        .output.items
    const flaky = async () => {
      // Sync and warm-up run in the background after the turn: wait for this turn's sync to land.
      await waitUntil(async () => ((await health()).find((h) => h.provider === 'flaky')?.syncs ?? 0) >= 1)
      return (await health()).find((h) => h.provider === 'flaky')!
    }

    await say('what is my editor?')
    const first = await flaky()
    expect(first.lastPrefetch).toMatchObject({ ok: true, query: 'what is my editor?', size: expect.any(Number) })
    expect(first.lastPrefetch!.size).toBe('FLAKY RECALL what is my editor?'.length)
    expect(first.lastPrefetch!.latencyMs).toEqual(expect.any(Number))

    await say('and my shell?')
    await waitUntil(async () => (await flaky()).syncs === 2)
    const items = await health()
    expect(items[0]!.provider).toBe('flaky') // failures first
    expect(items[0]!.lastPrefetch).toMatchObject({
      ok: false,
      size: null,
      query: 'and my shell?',
      detail: 'failed: recall service offline'
    })
    expect(items[0]).toMatchObject({ syncs: 2, syncFailures: 0 })
    const events = (
      (await d.invoke('memory.events', { profile: 'default', provider: 'flaky' })) as {
        ok: true
        output: { items: Array<{ kind: string; name: string; turnId: string | null }> }
      }
    ).output.items
    const recall = events.filter((e) => e.kind === 'prefetch')
    const syncs = events.filter((e) => e.kind === 'sync')
    expect(recall).toHaveLength(2)
    expect(syncs.map((e) => e.turnId).sort()).toEqual(recall.map((e) => e.turnId).sort())
  })
})

describe('Memory page: a failed provider load', () => {
  it('counts once in errors, and its load line is no call', async () => {
    rig = await makeRig(() => ({ text: 'ok' }))
    // a width Python's int() refuses: upstream's holographic initialize raises; so does this one's
    rig.writeConfig(
      'default',
      "memory:\n  provider: holographic\nplugins:\n  hermes-memory-store:\n    hrr_dim: 'wide'\n"
    )
    await rig.start()
    const d = rig.host!.dispatcher
    const finished = () => rig!.events.filter((e) => e.event === 'turn.finished').length
    expect((await d.invoke('sessions.start', { profile: 'default', text: 'hello' })).ok).toBe(true)
    await waitUntil(() => finished() > 0)
    const items = (
      (await d.invoke('memory.health', { profile: 'default' })) as { ok: true; output: { items: ProviderHealth[] } }
    ).output.items
    const h = items.find((i) => i.provider === 'holographic')!
    expect(h.lastError).toContain('hrr_dim')
    // the failed initialize is one error; the load line beside it (holographic: failed — …) is no second one, nor a
    // call (the calls are the hooks the kept provider still answered, as upstream keeps it)
    const events = (
      (await d.invoke('memory.events', { profile: 'default', provider: 'holographic' })) as {
        ok: true
        output: { items: Array<{ kind: string; ok: boolean }> }
      }
    ).output.items
    expect(events.filter((e) => e.kind === 'provider' && !e.ok)).toHaveLength(1)
    expect(h.errors).toBe(1)
    expect(h.calls).toBe(events.filter((e) => e.kind === 'hook' || e.kind === 'sync' || e.kind === 'prefetch').length)
  })
})
