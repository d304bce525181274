// Bulk actions and set export through the contract requests (`sessions.bulk`, `sessions.exportSet`) on real
// state.db files in two profiles: each session gets its own result, one failure never hides the others.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { usageReport } from '../src-main/store/test-fixtures/usage'

let home: string
let host: Host
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'cad-bulk-'))
  mkdirSync(join(home, 'profiles', 'work'), { recursive: true })
  for (const [dir, ids] of [
    [home, ['d1', 'd2', 'd3']],
    [join(home, 'profiles', 'work'), ['w1', 'w2']]
  ] as const) {
    const s = new SessionStore(join(dir, 'state.db'))
    for (const id of ids) {
      await s.createSession(id, id === 'd3' ? 'telegram' : 'cli', { title: `Title ${id}` })
      await s.appendMessage(id, { role: 'user', content: `hello from ${id}` })
    }
    s.close()
  }
  host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
}, 60_000)
afterAll(async () => {
  await host?.close()
  rmSync(home, { recursive: true, force: true })
})

const call = async <T>(name: string, input: unknown): Promise<T> => {
  const r = (await host.dispatcher.invoke(name as never, input as never)) as {
    ok: boolean
    output?: T
    error?: unknown
  }
  if (!r.ok) throw Object.assign(new Error('call failed'), { error: r.error })
  return r.output as T
}
type Results = {
  results: Array<{
    profile: string
    sessionId: string
    ok: boolean
    error?: string
    summary?: { archived: boolean; pinned: boolean }
  }>
}

describe('sessions.bulk', () => {
  it('archives across profiles, each in its own profile, and reports a missing one without stopping', async () => {
    const out = await call<Results>('sessions.bulk', {
      action: 'archive',
      sessions: [
        { profile: 'default', sessionId: 'd1' },
        { profile: 'work', sessionId: 'w1' },
        { profile: 'work', sessionId: 'nope' },
        { profile: 'ghost', sessionId: 'x' }
      ]
    })
    expect(out.results.map((r) => [r.sessionId, r.ok])).toEqual([
      ['d1', true],
      ['w1', true],
      ['nope', false],
      ['x', false]
    ])
    expect(out.results[0]!.summary).toMatchObject({ archived: true })
    expect(out.results[2]!.error).toMatch(/No session 'nope' in profile 'work'/)
    expect(out.results[3]!.error).toMatch(/Unknown profile: ghost/)
    expect(host.stores.get('work').summary('w1')).toMatchObject({ archived: true })
    expect(host.stores.get('default').summary('w1')).toBeNull()
    await call('sessions.bulk', { action: 'unarchive', sessions: [{ profile: 'work', sessionId: 'w1' }] })
    expect(host.stores.get('work').summary('w1')).toMatchObject({ archived: false })
  })

  it('pins and deletes; a second delete of the same session fails for that session only', async () => {
    await call('sessions.bulk', { action: 'pin', sessions: [{ profile: 'default', sessionId: 'd2' }] })
    expect(host.stores.get('default').summary('d2')).toMatchObject({ pinned: true })
    const del = await call<Results>('sessions.bulk', {
      action: 'delete',
      sessions: [
        { profile: 'default', sessionId: 'd2' },
        { profile: 'work', sessionId: 'w2' }
      ]
    })
    expect(del.results.every((r) => r.ok)).toBe(true)
    expect(host.stores.get('default').getSession('d2')).toBeNull()
    const again = await call<Results>('sessions.bulk', {
      action: 'delete',
      sessions: [
        { profile: 'default', sessionId: 'd2' },
        { profile: 'default', sessionId: 'd3' }
      ]
    })
    expect(again.results.map((r) => r.ok)).toEqual([false, true])
  })

  it('refuses an empty, repeated, oversized or unknown-action batch at the boundary', async () => {
    const bad = async (input: unknown) =>
      (await host.dispatcher.invoke('sessions.bulk' as never, input as never)) as { ok: boolean }
    expect((await bad({ action: 'archive', sessions: [] })).ok).toBe(false)
    expect((await bad({ action: 'explode', sessions: [{ profile: 'default', sessionId: 'd1' }] })).ok).toBe(false)
    const one = { profile: 'default', sessionId: 'd1' }
    expect((await bad({ action: 'archive', sessions: [one, one] })).ok).toBe(false)
    const many = Array.from({ length: 501 }, (_, i) => ({ profile: 'default', sessionId: `s${i}` }))
    expect((await bad({ action: 'archive', sessions: many })).ok).toBe(false)
  })
})

describe('sessions.exportSet', () => {
  it('exports exactly a selection across profiles, and names what it skipped', async () => {
    const out = await call<{ filename: string; content: string; count: number; skipped: Array<{ sessionId: string }> }>(
      'sessions.exportSet',
      {
        sessions: [
          { profile: 'default', sessionId: 'd1' },
          { profile: 'work', sessionId: 'w1' },
          { profile: 'work', sessionId: 'gone' }
        ]
      }
    )
    const ids = out.content
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id)
    expect(ids).toEqual(['d1', 'w1'])
    expect(out.count).toBe(2)
    expect(out.skipped.map((s) => s.sessionId)).toEqual(['gone'])
    expect(out.filename).toBe('caduceus-all-selected-2.jsonl')
  })

  it('exports exactly the rows a list filter shows', async () => {
    const shown = await call<{ items: Array<{ id: string }> }>('sessions.list', {
      profile: 'all',
      archived: 'include',
      sources: ['cli']
    })
    const out = await call<{ filename: string; content: string; count: number }>('sessions.exportSet', {
      filter: { profile: 'all', archived: 'include', sources: ['cli'] }
    })
    const ids = out.content
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id)
    expect(ids.sort()).toEqual(shown.items.map((s) => s.id).sort())
    expect(ids).not.toContain('d3')
    const work = await call<{ filename: string; content: string }>('sessions.exportSet', {
      format: 'markdown',
      filter: { profile: 'work' }
    })
    expect(work.filename).toBe('caduceus-work-shown-1.md')
    expect(work.content).toMatch(/^# Title w1/)
  })

  it('exports a selection across profiles as one HTML page, as a single session exports', async () => {
    const out = await call<{ filename: string; mime: string; content: string; count: number }>('sessions.exportSet', {
      format: 'html',
      sessions: [
        { profile: 'default', sessionId: 'd1' },
        { profile: 'work', sessionId: 'w1' }
      ]
    })
    expect(out).toMatchObject({ filename: 'caduceus-all-selected-2.html', mime: 'text/html', count: 2 })
    expect(out.content.match(/<!doctype html>/gi)).toHaveLength(1) // one page, a section per session
    expect(out.content).toContain('hello from d1')
    expect(out.content).toContain('hello from w1')
    expect(out.content.indexOf('hello from d1')).toBeLessThan(out.content.indexOf('hello from w1'))
  })
})

describe('sessions.exportSet with lineage (the list shows a compression chain as one row)', () => {
  it('exports a chain whole, one record with its segments; a session that is no chain as itself', async () => {
    const s = new SessionStore(join(home, 'state.db'))
    await s.createSession('ch0', 'cli', { title: 'Chain' })
    await s.appendMessage('ch0', { role: 'user', content: 'before the compression' })
    await s.endSession('ch0', 'compression')
    await s.createSession('ch1', 'cli', { parentSessionId: 'ch0' })
    await s.appendMessage('ch1', { role: 'user', content: 'after the compression' })
    s.close()
    const records = async (lineage?: boolean) =>
      (
        await call<{ content: string }>('sessions.exportSet', {
          sessions: [
            { profile: 'default', sessionId: 'ch1' },
            { profile: 'default', sessionId: 'd1' }
          ],
          ...(lineage === undefined ? {} : { lineage })
        })
      ).content
        .trim()
        .split('\n')
        .map(
          (l) => JSON.parse(l) as { id: string; lineage_session_ids?: string[]; messages: Array<{ content: string }> }
        )
    const [chain, plain] = await records(true)
    expect(chain!.lineage_session_ids).toEqual(['ch0', 'ch1'])
    expect(chain!.messages.map((m) => m.content)).toEqual(['before the compression', 'after the compression'])
    expect(plain!.id).toBe('d1')
    expect(plain!.lineage_session_ids).toBeUndefined()
    // without it, the tip segment alone (what a script asking for one session gets)
    const [tip] = await records()
    expect(tip!.lineage_session_ids).toBeUndefined()
    expect(tip!.messages.map((m) => m.content)).toEqual(['after the compression'])
  })
})

describe('rows a bulk action or an update returns', () => {
  it('carry the custom price the list shows, so pinning never drops that label', async () => {
    const s = new SessionStore(join(home, 'state.db'))
    await s.createSession('priced', 'cli', { title: 'Priced on my endpoint' })
    await s.recordUsage(
      'priced',
      usageReport(null, {
        model: 'my-llama',
        provider: 'custom',
        baseUrl: 'http://10.0.0.5:8000/v1',
        inputTokens: 1_000_000,
        outputTokens: 0
      })
    )
    s.close()
    await call('prices.set', {
      overrides: [{ model: 'my-llama', baseUrl: '', inputPerMTok: 3, outputPerMTok: 3, cacheReadPerMTok: 0 }]
    })
    const ref = [{ profile: 'default', sessionId: 'priced' }]
    const bulk = await call<{ results: Array<{ summary?: { customPrice?: boolean; cost: { usd: number } } }> }>(
      'sessions.bulk',
      { action: 'pin', sessions: ref }
    )
    expect(bulk.results[0]!.summary).toMatchObject({ customPrice: true, cost: { usd: 3 } })
    const updated = await call<{ customPrice?: boolean; pinned: boolean }>('sessions.update', {
      profile: 'default',
      sessionId: 'priced',
      pinned: false
    })
    expect(updated).toMatchObject({ customPrice: true, pinned: false })
  })
})

describe("the list's custom prices", () => {
  it('follow the settings file: a save, an edit by hand in place, a malformed file, its removal', async () => {
    // the 'priced' session above (1M input tokens on my-llama, unpriced by upstream)
    const row = async () =>
      (
        await call<{ items: Array<{ id: string; customPrice?: boolean; cost: { usd: number | null } }> }>(
          'sessions.list',
          { profile: 'default', idPrefix: 'priced' }
        )
      ).items[0]!
    const file = join(home, 'caduceus', 'prices.json')
    const price = (usd: number) =>
      JSON.stringify({ overrides: [{ model: 'my-llama', inputPerMTok: usd, outputPerMTok: 0 }] })
    await call('prices.set', {
      overrides: [{ model: 'my-llama', baseUrl: '', inputPerMTok: 3, outputPerMTok: 3, cacheReadPerMTok: 0 }]
    })
    expect(await row()).toMatchObject({ customPrice: true, cost: { usd: 3 } })
    writeFileSync(file, price(7)) // the same file, rewritten in place
    expect(await row()).toMatchObject({ customPrice: true, cost: { usd: 7 } })
    writeFileSync(file, price(12.5))
    expect(await row()).toMatchObject({ customPrice: true, cost: { usd: 12.5 } })
    writeFileSync(file, '{ not json')
    expect(await row()).toMatchObject({ cost: { usd: null } })
    expect((await row()).customPrice).toBeUndefined()
    writeFileSync(file, price(2))
    expect(await row()).toMatchObject({ customPrice: true, cost: { usd: 2 } })
    rmSync(file)
    expect((await row()).customPrice).toBeUndefined()
    expect(await call('prices.get', {})).toEqual({ overrides: [] })
  })
})
