import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkFollowUpAuthority } from './authority'
import { createDelegationRegistry, type DelegationRegistry } from './registry'
import {
  FOLLOW_UP_LINEAGE_ERROR,
  FOLLOW_UP_SELF_ERROR,
  followUpProfileError,
  insertDelegation,
  tempHome,
  type TempHome
} from './test-support'

let t: TempHome
let reg: DelegationRegistry
let profile = 'default'
beforeEach(() => {
  t = tempHome()
  profile = 'default'
  reg = createDelegationRegistry(t.store, { currentProfile: () => profile })
})
afterEach(() => t.cleanup())

async function retainChildOf(parentSessionId: string) {
  await insertDelegation(t.store, 'deleg_test0001', { parentSessionId })
  await reg.recordDispatchedChildren('deleg_test0001', [
    { subagent_id: 'sa-0-abc12345', session_id: 'child-sess-1', model: 'test/model', goal: 'g' }
  ])
  await t.store.ensureSession('child-sess-1', 'delegate') // a retained child's session exists
  await reg.retainCompletedDelegation('deleg_test0001', { cost_usd: 0.5 })
  return reg.findRetainedChild('sa-0-abc12345')!
}

const check = (entry: Parameters<typeof checkFollowUpAuthority>[0], requester: unknown) =>
  checkFollowUpAuthority(entry, requester, {
    currentProfile: reg.ctx.currentProfile(),
    lineageRoot: (sid) => t.store.getLineageRoot(sid)
  })

async function lineage() {
  await t.store.createSession('A', 'cli')
  await t.store.endSession('A', 'compression')
  await t.store.createSession('B', 'cli', { parentSessionId: 'A' })
  await t.store.createSession('branch', 'cli', { parentSessionId: 'A', modelConfig: { _branched_from: 'A' } })
  await t.store.createSession('delegatechild', 'delegate', {
    parentSessionId: 'A',
    modelConfig: { _delegate_from: 'A' }
  })
  await t.store.createSession('stranger', 'cli')
}

describe('follow-up authority', () => {
  // seed 004: test_lineage_authority_allows_compression_continuation
  it('allows the spawning session and its compression continuation', async () => {
    await lineage()
    const entry = await retainChildOf('A')
    expect(check(entry, 'B')).toBeNull()
    expect(check(entry, 'A')).toBeNull()
    expect(check(entry, '  B  ')).toBeNull()
  })

  // seed 004: test_lineage_authority_rejects_siblings_and_foreigners
  it('rejects branches, delegate siblings, strangers and missing requesters', async () => {
    await lineage()
    const entry = await retainChildOf('A')
    for (const foreign of ['branch', 'delegatechild', 'stranger', null, '', undefined, 42, 'no-such-session']) {
      expect(check(entry, foreign)).toBe(FOLLOW_UP_LINEAGE_ERROR)
    }
    expect(FOLLOW_UP_LINEAGE_ERROR).toContain('lineage')
  })

  // seed 004: test_lineage_authority_rejects_child_self_follow_up
  it('rejects a child following up on itself', async () => {
    await t.store.createSession('A', 'cli')
    const entry = await retainChildOf('A')
    const err = check(entry, 'child-sess-1')
    expect(err).toBe(FOLLOW_UP_SELF_ERROR)
    expect(err).toContain('itself')
  })

  // seed 004: test_foreign_profile_is_rejected
  it('rejects a retained child owned by another profile (checked first)', async () => {
    await t.store.createSession('A', 'cli')
    const entry = { ...(await retainChildOf('A')), ownerProfile: 'someone-else' }
    profile = 'me'
    const err = check(entry, 'A')
    expect(err).toBe(followUpProfileError('someone-else', 'me'))
    expect(err).toBe("follow_up rejected: retained subagent belongs to profile 'someone-else', not 'me'.")
  })

  it('fails closed when the lineage lookup throws', async () => {
    await t.store.createSession('A', 'cli')
    const entry = await retainChildOf('A')
    expect(
      checkFollowUpAuthority(entry, 'A', {
        currentProfile: '',
        lineageRoot: () => {
          throw new Error('db gone')
        }
      })
    ).toBe(FOLLOW_UP_LINEAGE_ERROR)
  })

  it('records the owner profile from the current scope at dispatch', async () => {
    profile = 'work'
    await t.store.createSession('A', 'cli')
    expect((await retainChildOf('A')).ownerProfile).toBe('work')
  })
})
