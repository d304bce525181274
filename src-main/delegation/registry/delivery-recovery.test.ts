import { spawnSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { insertDelegation, tempHome, type TempHome } from '../test-support'
import { ABANDONED_ERROR, createDelegationRegistry, MAX_DELIVERY_ATTEMPTS, newClaimToken, ownStartTime, type DelegationRegistry } from './index'

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
  it('marks rows of a dead owner unknown with the spec error, leaves live owners alone', () => {
    reg.persistDispatch({ delegationId: 'deleg_dead', parentSessionId: 'p', ownerPid: deadPid(), ownerStartedAt: null, task: { goal: 'g' } })
    reg.persistDispatch({ delegationId: 'deleg_live', parentSessionId: 'p' })
    expect(reg.recoverAbandonedDelegations()).toBe(1)
    const dead = reg.getDurableDelegation('deleg_dead')!
    expect(dead.state).toBe('unknown')
    expect(dead.deliveryState).toBe('pending')
    expect(dead.result).toEqual({ status: 'unknown', error: ABANDONED_ERROR })
    expect(ABANDONED_ERROR).toBe('Delegation owner exited before recording a terminal result; outcome unknown.')
    expect(reg.getDurableDelegation('deleg_live')!.state).toBe('running')
    const [event] = reg.listUndeliveredCompletions()
    expect(event).toMatchObject({ delegation_id: 'deleg_dead', status: 'unknown', goal: 'g', restored: true })
  })

  it('treats a reused pid (different start time) as abandoned', () => {
    const own = ownStartTime()
    if (own === null) return // no /proc: pid reuse cannot be detected here
    reg.persistDispatch({ delegationId: 'deleg_reused', parentSessionId: 'p', ownerPid: process.pid, ownerStartedAt: own + 12345 })
    expect(reg.recoverAbandonedDelegations()).toBe(1)
    expect(reg.getDurableDelegation('deleg_reused')!.state).toBe('unknown')
  })
})

describe('completion delivery claims', () => {
  beforeEach(() => {
    reg.persistDispatch({ delegationId: 'deleg_d', parentSessionId: 'p' })
    reg.persistCompletion({ delegation_id: 'deleg_d', status: 'completed' }, { status: 'completed', summary: 's' })
  })

  it('one claim at a time; complete marks delivered', () => {
    const a = newClaimToken('test')
    expect(a).toMatch(new RegExp(`^test:${process.pid}:[0-9a-f]{32}$`))
    expect(reg.claimCompletionDelivery('deleg_d', a)).toBe(true)
    expect(reg.claimCompletionDelivery('deleg_d', newClaimToken('other'))).toBe(false)
    expect(reg.completeCompletionDelivery('deleg_d', a)).toBe(true)
    expect(reg.getDurableDelegation('deleg_d')).toMatchObject({ deliveryState: 'delivered', deliveryAttempts: 1 })
    expect(reg.listUndeliveredCompletions()).toEqual([])
  })

  it('a claim older than 300 s can be stolen', () => {
    expect(reg.claimCompletionDelivery('deleg_d', 'a')).toBe(true)
    clock += 299
    expect(reg.claimCompletionDelivery('deleg_d', 'b')).toBe(false)
    clock += 2
    expect(reg.claimCompletionDelivery('deleg_d', 'b')).toBe(true)
    expect(reg.completeCompletionDelivery('deleg_d', 'a')).toBe(false)
    expect(reg.completeCompletionDelivery('deleg_d', 'b')).toBe(true)
  })

  it('the 8th failed attempt drops the row; result stays queryable', () => {
    const logs: string[] = []
    const r = createDelegationRegistry(t.store, { now: () => clock, log: (_l, m) => logs.push(m) })
    for (let i = 1; i <= MAX_DELIVERY_ATTEMPTS; i++) {
      expect(r.claimCompletionDelivery('deleg_d', `c${i}`)).toBe(true)
      expect(r.releaseCompletionDelivery('deleg_d', `c${i}`)).toBe(i < MAX_DELIVERY_ATTEMPTS ? 'pending' : 'dropped')
    }
    expect(r.claimCompletionDelivery('deleg_d', 'late')).toBe(false)
    expect(r.getDurableDelegation('deleg_d')).toMatchObject({ deliveryState: 'dropped', result: { summary: 's' } })
    expect(logs.join('\n')).toContain('exhausted its 8 delivery attempts')
  })

  it('unknown delegation ids claim true (legacy events); drop and mark work', () => {
    expect(reg.claimCompletionDelivery('deleg_nope', 'x')).toBe(true)
    expect(reg.dropCompletionDelivery('deleg_d')).toBe(true)
    expect(reg.markCompletionDelivered('deleg_d')).toBe(false)
    expect(reg.getDurableDelegation('nope')).toBeNull()
    expect(reg.getDurableDelegation(7)).toBeNull()
  })
})

describe('durable pruning', () => {
  it('deletes delivered rows older than 7 days but keeps live retained rows', () => {
    for (const id of ['deleg_old', 'deleg_keep']) {
      reg.persistDispatch({ delegationId: id, parentSessionId: 'p' })
      reg.recordDispatchedChildren(id, [{ subagent_id: `sa-${id}`, session_id: `cs-${id}` }])
      reg.persistCompletion({ delegation_id: id, status: id === 'deleg_keep' ? 'completed' : 'error' }, { status: 'x' })
      reg.markCompletionDelivered(id)
    }
    clock += 8 * 24 * 3600
    t.store.db.prepare('UPDATE async_delegations SET retained_at = ?').run(clock) // keep the retained one inside its TTL
    reg.pruneDurableRecords()
    expect(reg.getDurableDelegation('deleg_old')).toBeNull()
    expect(reg.getDurableDelegation('deleg_keep')).not.toBeNull()
  })

  it('caps terminal rows at 50, delivered first, oldest first', () => {
    for (let i = 0; i < 55; i++) {
      insertDelegation(t.store, `deleg_${i}`)
      reg.persistCompletion({ delegation_id: `deleg_${i}`, status: 'error' }, null)
      if (i < 10) reg.markCompletionDelivered(`deleg_${i}`)
      clock += 1
    }
    reg.pruneDurableRecords()
    const n = (t.store.db.prepare('SELECT COUNT(*) AS n FROM async_delegations').get() as { n: number }).n
    expect(n).toBe(50)
    expect(reg.getDurableDelegation('deleg_0')).toBeNull()
    expect(reg.getDurableDelegation('deleg_5')).not.toBeNull()
    expect(reg.getDurableDelegation('deleg_54')).not.toBeNull()
  })
})
