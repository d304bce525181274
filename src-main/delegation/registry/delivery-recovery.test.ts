import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { insertDelegation, tempHome, type TempHome } from '../test-support'
import { createDelegationRegistry, newClaimToken, ownStartTime, type DelegationRegistry } from './index'
import { rawDb } from '../../store/test-fixtures/raw-db'
import { SessionStore } from '../../store'

const MAX_DELIVERY_ATTEMPTS = 8 // a completion is dropped after its 8th failed delivery

let t: TempHome
let reg: DelegationRegistry
let clock = 0
beforeEach(() => {
  t = tempHome()
  clock = Date.now() / 1000
  reg = createDelegationRegistry(t.store, { now: () => clock, currentProfile: () => 'default' })
})
afterEach(() => t.cleanup())

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number

describe('recoverAbandonedDelegations', () => {
  it('marks rows of a dead owner unknown with the spec error, leaves live owners alone', async () => {
    await reg.persistDispatch({
      delegationId: 'deleg_dead',
      parentSessionId: 'p',
      ownerPid: deadPid(),
      ownerStartedAt: null,
      task: { goal: 'g' }
    })
    await reg.persistDispatch({ delegationId: 'deleg_live', parentSessionId: 'p' })
    expect(await reg.recoverAbandonedDelegations()).toBe(1)
    const dead = reg.getDurableDelegation('deleg_dead')!
    expect(dead.state).toBe('unknown')
    expect(dead.deliveryState).toBe('pending')
    expect(dead.result).toEqual({
      status: 'unknown',
      error: 'Delegation owner exited before recording a terminal result; outcome unknown.'
    })
    expect(reg.getDurableDelegation('deleg_live')!.state).toBe('running')
    const [event] = reg.listUndeliveredCompletions()
    expect(event).toMatchObject({ delegation_id: 'deleg_dead', status: 'unknown', goal: 'g', restored: true })
  })

  it('treats a reused pid (different start time) as abandoned', async () => {
    const own = ownStartTime()
    if (own === null) return // no /proc: pid reuse cannot be detected here
    await reg.persistDispatch({
      delegationId: 'deleg_reused',
      parentSessionId: 'p',
      ownerPid: process.pid,
      ownerStartedAt: own + 12345
    })
    expect(await reg.recoverAbandonedDelegations()).toBe(1)
    expect(reg.getDurableDelegation('deleg_reused')!.state).toBe('unknown')
  })
})

describe('completion delivery claims', () => {
  beforeEach(async () => {
    await reg.persistDispatch({ delegationId: 'deleg_d', parentSessionId: 'p' })
    await reg.persistCompletion(
      { delegation_id: 'deleg_d', status: 'completed' },
      { status: 'completed', summary: 's' }
    )
  })

  it('one claim at a time; complete marks delivered', async () => {
    const a = newClaimToken('test')
    expect(a).toMatch(new RegExp(`^test:${process.pid}:[0-9a-f]{32}$`))
    expect(await reg.claimCompletionDelivery('deleg_d', a)).toBe(true)
    expect(await reg.claimCompletionDelivery('deleg_d', newClaimToken('other'))).toBe(false)
    expect(await reg.completeCompletionDelivery('deleg_d', a)).toBe(true)
    expect(reg.getDurableDelegation('deleg_d')).toMatchObject({ deliveryState: 'delivered', deliveryAttempts: 1 })
    expect(reg.listUndeliveredCompletions()).toEqual([])
  })

  it('a claim older than 300 s can be stolen', async () => {
    expect(await reg.claimCompletionDelivery('deleg_d', 'a')).toBe(true)
    clock += 299
    expect(await reg.claimCompletionDelivery('deleg_d', 'b')).toBe(false)
    clock += 2
    expect(await reg.claimCompletionDelivery('deleg_d', 'b')).toBe(true)
    expect(await reg.completeCompletionDelivery('deleg_d', 'a')).toBe(false)
    expect(await reg.completeCompletionDelivery('deleg_d', 'b')).toBe(true)
  })

  it('the 8th failed attempt drops the row; result stays queryable', async () => {
    const logs: string[] = []
    const r = createDelegationRegistry(t.store, { now: () => clock, log: (_l, m) => logs.push(m) })
    for (let i = 1; i <= MAX_DELIVERY_ATTEMPTS; i++) {
      expect(await r.claimCompletionDelivery('deleg_d', `c${i}`)).toBe(true)
      expect(await r.releaseCompletionDelivery('deleg_d', `c${i}`)).toBe(
        i < MAX_DELIVERY_ATTEMPTS ? 'pending' : 'dropped'
      )
    }
    expect(await r.claimCompletionDelivery('deleg_d', 'late')).toBe(false)
    expect(r.getDurableDelegation('deleg_d')).toMatchObject({ deliveryState: 'dropped', result: { summary: 's' } })
    expect(logs.join('\n')).toContain('exhausted its 8 delivery attempts')
  })

  it('warns once about the dropped row when the store re-ran the write for a busy COMMIT', async () => {
    // a rollback-journal home: another connection's read lock makes the COMMIT busy and the store retry the write
    const path = join(t.home, 'journal', 'state.db')
    mkdirSync(dirname(path))
    const store = new SessionStore(path, { profile: 'default', journalMode: () => 'delete' })
    await insertDelegation(store, 'deleg_j')
    const logs: string[] = []
    const r = createDelegationRegistry(store, { now: () => clock, log: (_l, m) => logs.push(m) })
    for (let i = 1; i < MAX_DELIVERY_ATTEMPTS; i++) {
      expect(await r.claimCompletionDelivery('deleg_j', `c${i}`)).toBe(true)
      expect(await r.releaseCompletionDelivery('deleg_j', `c${i}`)).toBe('pending')
    }
    expect(await r.claimCompletionDelivery('deleg_j', 'last')).toBe(true)
    const reader = new Database(path)
    reader.prepare('BEGIN').run()
    reader.prepare('SELECT count(*) FROM sessions').get()
    let released = false
    setTimeout(() => {
      reader.prepare('COMMIT').run()
      released = true
    }, 100)
    expect(await r.releaseCompletionDelivery('deleg_j', 'last')).toBe('dropped')
    expect(released).toBe(true) // it committed only after the reader let go: the write was re-run
    reader.close()
    store.close()
    expect(logs.filter((m) => m.includes('exhausted its 8 delivery attempts'))).toHaveLength(1)
  })

  it('unknown delegation ids claim true (legacy events); drop and mark work', async () => {
    expect(await reg.claimCompletionDelivery('deleg_nope', 'x')).toBe(true)
    expect(await reg.dropCompletionDelivery('deleg_d')).toBe(true)
    expect(await reg.markCompletionDelivered('deleg_d')).toBe(false)
    expect(reg.getDurableDelegation('nope')).toBeNull()
    expect(reg.getDurableDelegation(7)).toBeNull()
  })
})

describe('durable pruning', () => {
  it('deletes delivered rows older than 7 days but keeps live retained rows', async () => {
    for (const id of ['deleg_old', 'deleg_keep']) {
      await reg.persistDispatch({ delegationId: id, parentSessionId: 'p' })
      await reg.recordDispatchedChildren(id, [{ subagent_id: `sa-${id}`, session_id: `cs-${id}` }])
      await t.store.ensureSession(`cs-${id}`, 'delegate') // a retained child's session exists
      await reg.persistCompletion(
        { delegation_id: id, status: id === 'deleg_keep' ? 'completed' : 'error' },
        { status: 'x' }
      )
      await reg.markCompletionDelivered(id)
    }
    clock += 8 * 24 * 3600
    rawDb(t.store).prepare('UPDATE async_delegations SET retained_at = ?').run(clock) // keep the retained one inside its TTL
    await reg.pruneDurableRecords()
    expect(reg.getDurableDelegation('deleg_old')).toBeNull()
    expect(reg.getDurableDelegation('deleg_keep')).not.toBeNull()
  })

  it('caps terminal rows at 50, delivered first, oldest first', async () => {
    for (let i = 0; i < 55; i++) {
      await insertDelegation(t.store, `deleg_${i}`)
      await reg.persistCompletion({ delegation_id: `deleg_${i}`, status: 'error' }, null)
      if (i < 10) await reg.markCompletionDelivered(`deleg_${i}`)
      clock += 1
    }
    await reg.pruneDurableRecords()
    const n = (rawDb(t.store).prepare('SELECT COUNT(*) AS n FROM async_delegations').get() as { n: number }).n
    expect(n).toBe(50)
    expect(reg.getDurableDelegation('deleg_0')).toBeNull()
    expect(reg.getDurableDelegation('deleg_5')).not.toBeNull()
    expect(reg.getDurableDelegation('deleg_54')).not.toBeNull()
  })
})
