// Async delegations upstream Hermes dispatched (its tools/async_delegation.py writes `async_delegations` rows with
// no child manifest) are listed on the Subagents page through the host: goal, model, status, timings, outcome, and
// the child session when exactly one delegate child matches. A completion upstream records from another process
// after the host started reaches the list (and a `delegation.updated` event) without any Caduceus write.
import { execFile } from 'node:child_process'
import { cpSync, existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import type { Subagent } from '@shared/contract'
import { createHost } from './create-host'
import { createLogger } from '../log/log'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'
import { waitUntil } from '../../tools/test-fixtures/helpers'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '../../..')
const GOLDEN = join(repo, 'test/fixtures/upstream/async-delegations')
const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'tools/async_delegation.py'))
const PARENT = '20260201_090000_pa01'

afterAll(cleanupTempDirs)

async function withHost(
  fn: (h: {
    home: string
    list: (input?: Record<string, unknown>) => Promise<Subagent[]>
    call: (name: string, input: unknown) => Promise<{ ok: boolean; output?: unknown }>
    events: Array<{ event: string; payload: unknown }>
  }) => Promise<void>
): Promise<void> {
  const home = tempDir()
  cpSync(GOLDEN, home, { recursive: true })
  const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
  const events: Array<{ event: string; payload: unknown }> = []
  const off = host.bus.subscribe((e) => void events.push({ event: e.event, payload: e.payload }))
  const call = (name: string, input: unknown) =>
    host.dispatcher.invoke(name as never, input as never) as Promise<{ ok: boolean; output?: unknown }>
  const list = async (input: Record<string, unknown> = {}) => {
    const r = await call('subagents.list', { profile: 'default', ...input })
    expect(r.ok, JSON.stringify(r)).toBe(true)
    return (r.output as { items: Subagent[] }).items
  }
  try {
    await fn({ home, list, call, events })
  } finally {
    off()
    await host.close()
  }
}

const byId = (items: Subagent[], id: string) => items.find((s) => s.delegationId === id)

describe("upstream's async delegations on the Subagents page", () => {
  it('lists every row upstream recorded: running, completed, failed, with goal, model, outcome and a child only when certain', async () => {
    await withHost(async ({ list, call }) => {
      const items = await list()
      expect(items.map((s) => s.delegationId).sort()).toEqual([
        'deleg_done0001',
        'deleg_dupe0001',
        'deleg_fail0001',
        'deleg_run00001'
      ])
      for (const s of items) {
        expect(s).toMatchObject({ profile: 'default', parentSessionId: PARENT, model: 'gpt-4o-mini', foreign: true })
        expect(s.dispatchedAt).toBeGreaterThan(0)
      }
      expect(byId(items, 'deleg_run00001')).toMatchObject({
        state: 'running',
        rawState: 'running',
        goal: 'Survey heater brands',
        childSessionId: '20260201_090400_ch04',
        completedAt: null,
        summary: null
      })
      const done = byId(items, 'deleg_done0001')!
      expect(done).toMatchObject({
        state: 'completed',
        goal: 'Compare igniter prices',
        childSessionId: '20260201_090100_ch01',
        summary: 'Cheapest igniter: 19 USD',
        retainedAt: null,
        expiresAt: null
      })
      expect(done.completedAt!).toBeGreaterThanOrEqual(done.dispatchedAt!)
      expect(done.transcriptMessages).toBe(2)
      expect(byId(items, 'deleg_fail0001')).toMatchObject({
        state: 'failed',
        rawState: 'error',
        goal: 'Call the supplier hotline',
        childSessionId: '',
        error: 'Provider returned 429: rate limited'
      })
      // two delegate children started with this goal: neither is linked (no guess)
      expect(byId(items, 'deleg_dupe0001')).toMatchObject({ state: 'completed', childSessionId: '' })
      // each row keeps its own key even without a child session
      expect(new Set(items.map((s) => s.childId)).size).toBe(items.length)

      // the transcript's own subagents (one parent) list them too
      expect((await list({ parentSessionId: PARENT })).length).toBe(4)
      expect(await list({ parentSessionId: 'someone-else' })).toEqual([])

      // seed 004: follow-up and tombstone reach only Caduceus's retained registry; upstream's row is neither
      // messaged nor rewritten
      const fu = await call('subagents.followUp', { profile: 'default', childId: done.childId, text: 'more please' })
      expect(fu.ok).toBe(false)
      expect(JSON.stringify(fu)).toContain('not a running subagent')
      const tomb = await call('subagents.tombstone', { profile: 'default', childId: done.childId })
      expect(tomb).toMatchObject({ ok: true, output: { tombstoned: false } })
      expect(byId(await list({ includeTombstoned: true }), 'deleg_done0001')).toMatchObject({
        state: 'completed',
        tombstonedAt: null
      })
    })
  })

  const writers: Array<[string, boolean, (home: string) => Promise<unknown>]> = [
    [
      "upstream's own _persist_completion (python)",
      hasUpstream,
      (home) =>
        run(PYTHON, [join(repo, 'scripts/golden/async_delegations.py'), 'complete', home, 'deleg_run00001'], {
          env: { ...process.env, HERMES_UPSTREAM: UPSTREAM }
        })
    ],
    [
      'a node process writing its UPDATE',
      true,
      (home) =>
        run(process.execPath, [
          join(repo, 'test/fixtures/upstream-async-complete.mjs'),
          join(home, 'state.db'),
          'deleg_run00001'
        ])
    ]
  ]
  for (const [name, available, write] of writers)
    it.skipIf(!available)(
      `a completion another process records after start-up turns running into completed: ${name}`,
      async () => {
        await withHost(async ({ home, list, events }) => {
          expect(byId(await list(), 'deleg_run00001')).toMatchObject({ state: 'running', completedAt: null })
          await write(home)
          await waitUntil(() =>
            events.some(
              (e) =>
                e.event === 'delegation.updated' &&
                (e.payload as { delegationId: string }).delegationId === 'deleg_run00001'
            )
          )
          const ev = events.find((e) => e.event === 'delegation.updated')!.payload
          expect(ev).toEqual({ profile: 'default', delegationId: 'deleg_run00001', parentSessionId: PARENT })
          const after = byId(await list(), 'deleg_run00001')!
          expect(after).toMatchObject({
            state: 'completed',
            rawState: 'completed',
            summary: 'Brands: Acme, Borealis',
            childSessionId: '20260201_090400_ch04',
            foreign: true
          })
          expect(after.completedAt!).toBeGreaterThanOrEqual(after.dispatchedAt!)
        })
      }
    )
})
