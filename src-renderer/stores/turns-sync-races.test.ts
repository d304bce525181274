import { beforeEach, describe, expect, it } from 'vitest'
import { installFakeApi, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { usd, zeroTokens } from '../test-utils/fixtures'
import { applyTurnFinished, applyTurnQueued, applyTurnStarted, syncTurns, useTurns } from './turns'

// turns.active's answer and turn.* events reach the window in either order. An event emitted
// after the window computed `known` but before the host ran the handler (a Cancel from another window, a queued
// message that failed) always arrives first. The host also reads its state in the handler and sends the answer a few
// awaits later (dispatch → withBusyRetry → transport): an event emitted in that (narrow) window arrives first too.
let fake: FakeApi
const s1 = { profile: 'default', sessionId: 's1' }
const finished = (turnId: string, status: 'completed' | 'interrupted') => ({
  turnId,
  ...s1,
  status,
  tokens: zeroTokens,
  cost: usd(0),
  apiCalls: 0
})

beforeEach(async () => {
  resetStores()
  fake = await installFakeApi({})
})

describe('syncTurns against events that arrive before its answer', () => {
  it('a known queued message cancelled (turn.finished) before the answer does not make syncTurns throw', async () => {
    applyTurnQueued({ turnId: 'q', ...s1, text: 'later', position: 1 })
    applyTurnStarted({ turnId: 'other', ...s1, cache: 'reused', model: 'm', demo: false })
    // Cancel from another window: the host drops q (never in `recent`) and emits turn.finished before it answers
    fake.handlers['turns.active'] = () => {
      applyTurnFinished(finished('q', 'interrupted'))
      return { turns: [], finished: [finished('other', 'completed')] }
    }
    await expect(syncTurns()).resolves.toBeUndefined()
    expect(useTurns.getState().byId.q).toBeUndefined()
    expect(useTurns.getState().byId.other!.status).toBe('completed')
  })

  it('a turn listed running whose turn.finished arrived first stays finished (no Stop button forever)', async () => {
    applyTurnStarted({ turnId: 't', ...s1, cache: 'reused', model: 'm', demo: false })
    fake.handlers['turns.active'] = () => {
      const answer = { turns: [{ turnId: 't', ...s1, status: 'running' as const, source: 'desktop' }], finished: [] }
      applyTurnFinished(finished('t', 'completed')) // emitted between the handler and the reply frame
      return answer
    }
    await syncTurns()
    expect(useTurns.getState().byId.t!.status).toBe('completed')
  })

  it('a queued message listed by the answer but cancelled first is not brought back as queued', async () => {
    applyTurnQueued({ turnId: 'q', ...s1, text: 'later', position: 1 })
    fake.handlers['turns.active'] = () => {
      const answer = {
        turns: [{ turnId: 'q', ...s1, status: 'queued' as const, source: 'desktop', text: 'later' }],
        finished: []
      }
      applyTurnFinished(finished('q', 'interrupted'))
      return answer
    }
    await syncTurns()
    expect(useTurns.getState().byId.q).toBeUndefined()
  })
})

describe('syncTurns after a reconnect', () => {
  it('a queued message whose turn started while the window was away is not shown as a queued/not-sent bubble', async () => {
    applyTurnQueued({ turnId: 'q', ...s1, text: 'later', position: 1 })
    // while disconnected q's turn.started was missed; the host now lists it running
    fake.handlers['turns.active'] = () => ({
      turns: [{ turnId: 'q', ...s1, status: 'running' as const, source: 'desktop' }],
      finished: []
    })
    await syncTurns()
    const t = useTurns.getState().byId.q!
    expect(t.status).toBe('running')
    // LiveTurnView renders <QueuedTurn> ('not sent', no stream) whenever queuedText is set and cache is null
    expect(t.queuedText !== undefined && t.cache === null).toBe(false)
  })
})
