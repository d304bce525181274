import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { insertDelegation, tempHome, type TempHome } from '../test-support'
import { createDelegationRegistry, type DelegationRegistry } from './index'
import type { ChildManifestEntry } from '../types'
import { rawDb as dbOf } from '../../store/test-fixtures/raw-db'

let t: TempHome
let reg: DelegationRegistry
let clock = 1_000_000
const now = () => clock

beforeEach(() => {
  t = tempHome()
  clock = Date.now() / 1000
  reg = createDelegationRegistry(t.store, { now, currentProfile: () => 'default' })
})
afterEach(() => t.cleanup())

const childSessions = async (...ids: string[]) => {
  for (const id of ids) await t.store.ensureSession(id, 'delegate')
}

async function dispatchAndRetain(
  id = 'deleg_test0001',
  opts: { parentSessionId?: string; children?: ChildManifestEntry[] } = {}
) {
  await insertDelegation(t.store, id, { parentSessionId: opts.parentSessionId ?? 'parent-1' })
  const children = opts.children ?? [
    { subagent_id: 'sa-0-abc12345', session_id: 'child-sess-1', model: 'test/model', goal: 'do the thing' }
  ]
  // a retained child whose session is gone is tombstoned by the prune: the children's sessions exist
  await childSessions(...children.flatMap((c) => (typeof c.session_id === 'string' ? [c.session_id] : [])))
  await reg.recordDispatchedChildren(id, children)
  await reg.retainCompletedDelegation(id, { cost_usd: 0.5 })
  return id
}

// The retained columns and the usage ledger are the store's schema: seed 004's schema tests live in
// src-main/store/open.test.ts (fresh file and legacy 13-column upgrade).
describe('retained registry', () => {
  // seed 004: test_retain_and_list_children
  it('lists one entry per retained child with the upstream keys', async () => {
    await dispatchAndRetain()
    const entries = reg.listRetainedChildren()
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({
      childId: 'sa-0-abc12345',
      childSessionId: 'child-sess-1',
      model: 'test/model',
      delegationId: 'deleg_test0001',
      ownerProfile: 'default',
      goal: 'do the thing'
    })
  })

  // seed 004: test_find_retained_child_by_any_id
  it('finds a child by subagent id, child session id or delegation id', async () => {
    await dispatchAndRetain()
    for (const key of ['sa-0-abc12345', 'child-sess-1', 'deleg_test0001', '  child-sess-1  '])
      expect(reg.findRetainedChild(key)).not.toBeNull()
    expect(reg.findRetainedChild('nope')).toBeNull()
    for (const bad of ['', '   ', null, undefined, 42, {}]) expect(reg.findRetainedChild(bad)).toBeNull()
  })

  // seed 004: test_tombstone_removes_addressability_only
  it('tombstoning removes addressability but never the row', async () => {
    await dispatchAndRetain()
    expect(await reg.tombstoneRetainedChild('sa-0-abc12345')).toBe(true)
    expect(reg.findRetainedChild('sa-0-abc12345')).toBeNull()
    expect(await reg.tombstoneRetainedChild('sa-0-abc12345')).toBe(false)
    const row = dbOf(t.store)
      .prepare("SELECT tombstoned_at, children_json FROM async_delegations WHERE delegation_id='deleg_test0001'")
      .get() as {
      tombstoned_at: number | null
      children_json: string
    }
    expect(row.tombstoned_at).not.toBeNull()
    expect(row.children_json).toContain('child-sess-1')
  })

  // seed 004: test_ttl_prune_tombstones_expired_rows
  it('TTL prune tombstones rows retained longer ago than the TTL', async () => {
    await dispatchAndRetain()
    dbOf(t.store)
      .prepare('UPDATE async_delegations SET retained_at = ? WHERE delegation_id = ?')
      .run(clock - 100 * 3600, 'deleg_test0001')
    expect(await reg.pruneRetainedChildren({ ttlHours: 72 })).toBe(1)
    expect(reg.listRetainedChildren()).toEqual([])
  })

  // seed 004: test_cap_prune_keeps_newest
  it('cap prune keeps the newest retained units', async () => {
    for (let i = 0; i < 4; i++) {
      await dispatchAndRetain(`deleg_cap${String(i).padStart(5, '0')}`, {
        children: [{ subagent_id: `sa-${i}`, session_id: `cs-${i}` }]
      })
      clock += 0.01
    }
    await reg.pruneRetainedChildren({ maxRetained: 2, ttlHours: 9999 })
    expect(new Set(reg.listRetainedChildren().map((e) => e.delegationId))).toEqual(
      new Set(['deleg_cap00002', 'deleg_cap00003'])
    )
  })

  it('config limits apply on retain (delegation.max_retained in config.yaml)', async () => {
    t.writeConfig('delegation:\n  max_retained: 1\n')
    const fromConfig = createDelegationRegistry(t.store, { now })
    await childSessions('cs-a', 'cs-b')
    await insertDelegation(t.store, 'deleg_a')
    await fromConfig.recordDispatchedChildren('deleg_a', [{ subagent_id: 'sa-a', session_id: 'cs-a' }])
    await fromConfig.retainCompletedDelegation('deleg_a')
    clock += 1
    await insertDelegation(t.store, 'deleg_b')
    await fromConfig.recordDispatchedChildren('deleg_b', [{ subagent_id: 'sa-b', session_id: 'cs-b' }])
    await fromConfig.retainCompletedDelegation('deleg_b')
    expect(fromConfig.listRetainedChildren().map((e) => e.childId)).toEqual(['sa-b'])
  })

  it('explicit prune arguments are floored (max ≥ 1, ttl ≥ 0)', async () => {
    await dispatchAndRetain()
    expect(await reg.pruneRetainedChildren({ maxRetained: 0, ttlHours: 9999 })).toBe(0)
    expect(reg.listRetainedChildren()).toHaveLength(1)
  })

  // seed 004: test_completion_persist_retains_only_success
  it('persisting a completion retains only completed units', async () => {
    await childSessions('cs-ok', 'cs-err')
    await insertDelegation(t.store, 'deleg_ok000001')
    await insertDelegation(t.store, 'deleg_err00001')
    await reg.recordDispatchedChildren('deleg_ok000001', [{ subagent_id: 'sa-ok', session_id: 'cs-ok' }])
    await reg.recordDispatchedChildren('deleg_err00001', [{ subagent_id: 'sa-err', session_id: 'cs-err' }])
    await reg.persistCompletion(
      { delegation_id: 'deleg_ok000001', status: 'completed' },
      { status: 'completed', summary: 'done' }
    )
    await reg.persistCompletion(
      { delegation_id: 'deleg_err00001', status: 'error' },
      { status: 'error', summary: null }
    )
    expect(new Set(reg.listRetainedChildren().map((e) => e.delegationId))).toEqual(new Set(['deleg_ok000001']))
    expect(reg.getDurableDelegation('deleg_err00001')).toMatchObject({
      state: 'error',
      deliveryState: 'pending',
      result: { status: 'error', summary: null }
    })
  })

  // seed 004: test_recover_abandoned_delegations_rehydrates_retained
  it('retained rows survive a restart and are rehydrated by recovery', async () => {
    await dispatchAndRetain()
    const reopened = createDelegationRegistry(t.reopen(), { now, currentProfile: () => 'default' })
    await reopened.recoverAbandonedDelegations()
    expect(reopened.listRetainedChildren().map((e) => e.childSessionId)).toEqual(['child-sess-1'])
  })

  it('records child_session_id only for a single child and synthesizes a child from it', async () => {
    await childSessions('cs-1', 'cs-2', 'cs-legacy')
    await insertDelegation(t.store, 'deleg_batch')
    await reg.recordDispatchedChildren('deleg_batch', [
      { subagent_id: 'sa-1', session_id: 'cs-1' },
      { subagent_id: 'sa-2', session_id: 'cs-2' }
    ])
    expect(
      dbOf(t.store).prepare("SELECT child_session_id FROM async_delegations WHERE delegation_id='deleg_batch'").get()
    ).toEqual({ child_session_id: null })
    await insertDelegation(t.store, 'deleg_legacy')
    dbOf(t.store)
      .prepare(
        "UPDATE async_delegations SET child_session_id='cs-legacy', retained=1, retained_at=? WHERE delegation_id='deleg_legacy'"
      )
      .run(clock)
    await reg.retainCompletedDelegation('deleg_batch')
    const ids = reg.listRetainedChildren().map((e) => e.childId)
    expect(ids).toEqual(expect.arrayContaining(['sa-1', 'sa-2', 'cs-legacy']))
  })

  it('malformed children_json does not break listing', async () => {
    await childSessions('cs-x')
    await dispatchAndRetain()
    dbOf(t.store).prepare("UPDATE async_delegations SET children_json='{not json', child_session_id='cs-x'").run()
    expect(reg.listRetainedChildren().map((e) => e.childId)).toEqual(['cs-x'])
  })

  it('a tombstoned delegation is never re-retained', async () => {
    await dispatchAndRetain()
    await reg.tombstoneRetainedChild('deleg_test0001')
    await reg.retainCompletedDelegation('deleg_test0001')
    expect(reg.listRetainedChildren()).toEqual([])
  })
})

describe('the dispatch write', () => {
  it("carries the children manifest in the row's own transaction: the row is never without one (never foreign)", async () => {
    const { isForeignRow } = await import('../foreign')
    let seen: { childrenJson: string | null; childSessionId: string | null } | null = null
    const realWrite = t.store.write.bind(t.store)
    let writes = 0
    // After the dispatch's write, fail every further one: a manifest written separately would be lost.
    const spy = ((fn: Parameters<typeof t.store.write>[0]) => {
      if (writes++ > 0) return Promise.reject(new Error('disk full'))
      return realWrite(fn)
    }) as typeof t.store.write
    t.store.write = spy
    try {
      await reg
        .persistDispatch({
          delegationId: 'deleg_tx000001',
          parentSessionId: 'parent-1',
          task: { goal: 'g', is_batch: false },
          children: [{ subagent_id: 'sa-1', session_id: 'cs-1', goal: 'g' }]
        })
        .catch(() => undefined) // the prune after it fails here
    } finally {
      t.store.write = realWrite
    }
    const row = dbOf(t.store)
      .prepare('SELECT children_json, child_session_id FROM async_delegations WHERE delegation_id = ?')
      .get('deleg_tx000001') as { children_json: string | null; child_session_id: string | null }
    seen = { childrenJson: row.children_json, childSessionId: row.child_session_id }
    expect(seen.childSessionId).toBe('cs-1')
    expect(JSON.parse(seen.childrenJson!)).toEqual([{ subagent_id: 'sa-1', session_id: 'cs-1', goal: 'g' }])
    expect(isForeignRow(seen)).toBe(false)
  })
})
