import { beforeEach, describe, expect, it } from 'vitest'
import { cacheDecisionLabel } from '../lib/format'
import { installFakeApi, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { usd, zeroTokens } from '../test-utils/fixtures'
import { useToasts } from './toasts'
import {
  applyTurnDelta,
  applyTurnFinished,
  applyTurnQueued,
  applyTurnStarted,
  sendMessage,
  startChat,
  stopTurn,
  syncTurns,
  turnsForSession,
  useTurns
} from './turns'

let fake: FakeApi
const h = { turnId: 't1', profile: 'default', sessionId: 's1' }

beforeEach(async () => {
  resetStores()
  fake = await installFakeApi({
    'sessions.resume': ({ profile, sessionId }) => ({ turnId: 't1', profile, sessionId }),
    'sessions.start': ({ profile }) => ({ turnId: 't2', profile, sessionId: 'new-session' }),
    'turns.stop': () => ({ ok: true as const })
  })
})

describe('turns store', () => {
  it('streams text, reasoning and tool calls into one live turn', async () => {
    await sendMessage('default', 's1', 'hi')
    applyTurnStarted({ ...h, cache: 'config_changed', model: 'm', demo: true })
    applyTurnDelta({ ...h, kind: 'reasoning', text: 'think ' })
    applyTurnDelta({ ...h, kind: 'text', text: 'Hel' })
    applyTurnDelta({ ...h, kind: 'text', text: 'lo' })
    applyTurnDelta({ ...h, kind: 'tool_call', toolCallId: 'c1', toolName: 'read_file', text: '{"path":' })
    applyTurnDelta({ ...h, kind: 'tool_call', toolCallId: 'c1', text: '"a"}' })
    applyTurnDelta({ ...h, kind: 'tool_result', toolCallId: 'c1', text: 'contents' })
    const t = useTurns.getState().byId.t1!
    expect(t.text).toBe('Hello')
    expect(t.reasoning).toBe('think ')
    expect(t.tools).toEqual([{ id: 'c1', name: 'read_file', args: '{"path":"a"}', result: 'contents' }])
    expect(t.demo).toBe(true)
    expect(cacheDecisionLabel(t.cache!)).toBe('fresh agent: settings changed')
  })

  it("a rebuild's reason from the host replaces the generic label", () => {
    applyTurnStarted({
      ...h,
      cache: 'config_changed',
      cacheReason: 'memory provider identity changed (alice → bob)',
      model: 'm',
      demo: false
    })
    const t = useTurns.getState().byId.t1!
    expect(cacheDecisionLabel(t.cache!, t.cacheReason)).toBe(
      'fresh agent: memory provider identity changed (alice → bob)'
    )
    applyTurnStarted({ ...h, cache: 'reused', model: 'm', demo: false })
    expect(useTurns.getState().byId.t1!.cacheReason).toBeNull()
  })

  it('accepts events that arrive before the resume call returns', () => {
    applyTurnStarted({ ...h, cache: 'reused', model: null, demo: false })
    applyTurnDelta({ ...h, kind: 'text', text: 'x' })
    expect(useTurns.getState().order).toEqual(['t1'])
  })

  it('clears streamed buffers once the message is saved and notes a rotated session', () => {
    applyTurnDelta({ ...h, kind: 'text', text: 'partial' })
    applyTurnDelta({ ...h, kind: 'message_saved', messageId: 9, savedSessionId: 's2' })
    const t = useTurns.getState().byId.t1!
    expect(t.text).toBe('')
    expect(t.savedMessageIds).toEqual([9])
    expect(t.rotatedTo).toBe('s2')
    expect(turnsForSession(useTurns.getState(), 'default', 's2')).toHaveLength(1)
  })

  it('a reply still cut off after its continuations finishes as an error marked partial, with the reason', () => {
    applyTurnStarted({ ...h, cache: 'new', model: 'm', demo: false })
    const error = 'the reply was still cut off by the output cap after 3 requests to continue; it ends there'
    applyTurnFinished({ ...h, status: 'error', error, partial: true, tokens: zeroTokens, cost: usd(0), apiCalls: 4 })
    const t = useTurns.getState().byId.t1!
    expect([t.status, t.partial, t.error]).toEqual(['error', true, error])
    applyTurnStarted({ ...h, turnId: 't2', cache: 'reused', model: 'm', demo: false })
    applyTurnFinished({
      ...h,
      turnId: 't2',
      status: 'error',
      error: 'boom',
      tokens: zeroTokens,
      cost: usd(0),
      apiCalls: 1
    })
    expect(useTurns.getState().byId.t2!.partial).toBe(false)
  })

  it('finishes with status, cost and api calls', () => {
    applyTurnStarted({ ...h, cache: 'new', model: 'm', demo: false })
    applyTurnFinished({
      ...h,
      status: 'interrupted',
      tokens: zeroTokens,
      cost: usd(null, 'unpriced', false),
      apiCalls: 2
    })
    const t = useTurns.getState().byId.t1!
    expect(t.status).toBe('interrupted')
    expect(t.cost!.status).toBe('unpriced')
    expect(t.apiCalls).toBe(2)
  })

  it('stops a running turn through turns.stop', async () => {
    applyTurnStarted({ ...h, cache: 'reused', model: null, demo: false })
    await stopTurn('t1')
    expect(fake.callsOf('turns.stop')).toEqual([{ turnId: 't1' }])
    applyTurnFinished({ ...h, status: 'interrupted', tokens: zeroTokens, cost: usd(0), apiCalls: 1 })
    await stopTurn('t1')
    expect(fake.callsOf('turns.stop')).toHaveLength(1)
  })

  it('a queued message shows as a queued turn whichever comes first, its event or the answer; it runs or is cancelled', async () => {
    const run = { turnId: 'run', profile: 'default', sessionId: 's1' }
    applyTurnStarted({ ...run, cache: 'reused', model: 'm', demo: false })
    // the answer first: the running turn is not marked stopping (the host queued rather than interrupted)
    fake.handlers['sessions.resume'] = ({ profile, sessionId }) => ({
      turnId: 'q1',
      profile,
      sessionId,
      busy: 'queued' as const,
      note: 'Queued instead of interrupting: subagents of this conversation are at work.'
    })
    await sendMessage('default', 's1', 'after this', { busyMode: 'interrupt' })
    expect(fake.callsOf('sessions.resume').at(-1)).toMatchObject({ whileBusy: true, text: 'after this' })
    expect(useTurns.getState().byId.run!.stopping).toBe(false)
    expect(useTurns.getState().byId.q1).toMatchObject({ status: 'queued', queuedText: 'after this' })
    expect(useTurns.getState().byId.q1!.note).toContain('subagents')
    applyTurnStarted({ turnId: 'q1', profile: 'default', sessionId: 's1', cache: 'reused', model: 'm', demo: false })
    expect(useTurns.getState().byId.q1!.status).toBe('running')
    applyTurnQueued({ turnId: 'q1', profile: 'default', sessionId: 's1', text: 'late event', position: 1 })
    expect(useTurns.getState().byId.q1!.status).toBe('running') // an event cannot send a started turn back
    // a queued message whose turn could not start keeps its text, with the reason
    applyTurnQueued({ turnId: 'q3', profile: 'default', sessionId: 's1', text: 'keep me', position: 1 })
    applyTurnFinished({
      turnId: 'q3',
      profile: 'default',
      sessionId: 's1',
      status: 'error',
      error: 'Your queued message was not sent: the host shut down first',
      tokens: zeroTokens,
      cost: usd(0),
      apiCalls: 0
    })
    expect(useTurns.getState().byId.q3).toMatchObject({ status: 'error', queuedText: 'keep me', cache: null })
    // the event first, then a cancel: the queued turn leaves no trace
    applyTurnQueued({ turnId: 'q2', profile: 'default', sessionId: 's1', text: 'then this', position: 1 })
    expect(useTurns.getState().byId.q2).toMatchObject({ status: 'queued', queuedText: 'then this' })
    await stopTurn('q2')
    expect(fake.callsOf('turns.stop').at(-1)).toEqual({ turnId: 'q2' })
    applyTurnFinished({
      turnId: 'q2',
      profile: 'default',
      sessionId: 's1',
      status: 'interrupted',
      tokens: zeroTokens,
      cost: usd(0),
      apiCalls: 0
    })
    expect(useTurns.getState().byId.q2).toBeUndefined()
    expect(useTurns.getState().order).not.toContain('q2')
  })

  it('a steered message notes itself on the running turn; an interrupting one marks it stopping', async () => {
    const run = { turnId: 'run', profile: 'default', sessionId: 's1' }
    applyTurnStarted({ ...run, cache: 'reused', model: 'm', demo: false })
    fake.handlers['sessions.resume'] = () => ({ ...run, busy: 'steered' as const })
    await sendMessage('default', 's1', 'make it blue', { busyMode: 'steer' })
    expect(useTurns.getState().byId.run).toMatchObject({ status: 'running', stopping: false })
    expect(useTurns.getState().byId.run!.notices.at(-1)).toContain('make it blue')
    let during: boolean | undefined
    fake.handlers['sessions.resume'] = ({ profile, sessionId }) => {
      during = useTurns.getState().byId.run!.stopping
      return { turnId: 'next', profile, sessionId, busy: 'interrupted' as const }
    }
    await sendMessage('default', 's1', 'instead', { busyMode: 'interrupt' })
    expect(during).toBe(true)
    expect(useTurns.getState().byId.run!.stopping).toBe(true)
  })

  it('a window that opens or reconnects shows what runs and waits, and settles what ended while it was away', async () => {
    applyTurnStarted({ turnId: 'gone', profile: 'default', sessionId: 's1', cache: 'reused', model: 'm', demo: false })
    applyTurnStarted({ turnId: 'done', profile: 'default', sessionId: 's1', cache: 'reused', model: 'm', demo: false })
    applyTurnQueued({ turnId: 'dropped', profile: 'default', sessionId: 's1', text: 'x', position: 1 })
    fake.handlers['turns.active'] = () => ({
      turns: [
        { turnId: 'api', profile: 'default', sessionId: 's1', status: 'running' as const, source: 'api_server' },
        {
          turnId: 'wait',
          profile: 'default',
          sessionId: 's1',
          status: 'queued' as const,
          source: 'desktop',
          text: 'later'
        }
      ],
      finished: [
        {
          turnId: 'done',
          profile: 'default',
          sessionId: 's1',
          status: 'completed' as const,
          tokens: zeroTokens,
          cost: usd(0),
          apiCalls: 1
        }
      ]
    })
    await syncTurns()
    expect(fake.callsOf('turns.active').at(-1)).toEqual({ known: ['gone', 'done', 'dropped'] })
    const by = useTurns.getState().byId
    expect(by.api).toMatchObject({ status: 'running', source: 'api_server' })
    expect(by.wait).toMatchObject({ status: 'queued', queuedText: 'later' })
    expect(by.done!.status).toBe('completed')
    expect(by.gone).toMatchObject({ status: 'interrupted', error: expect.stringContaining('disconnected') })
    expect(by.dropped).toBeUndefined()
  })

  it('starts a new chat and tracks its turn', async () => {
    const handle = await startChat('work', 'hello')
    expect(handle!.sessionId).toBe('new-session')
    expect(useTurns.getState().byId.t2!.profile).toBe('work')
  })

  it('reports a refused send as a toast and returns null', async () => {
    fake.handlers['sessions.resume'] = () => {
      throw new Error('message text is required')
    }
    expect(await sendMessage('default', 's1', ' ')).toBeNull()
    expect(useToasts.getState().toasts.at(-1)!.message).toContain('message text is required')
  })

  it('labels every cache decision with the exact badge text', () => {
    expect(
      ['reused', 'new', 'config_changed', 'external_write', 'session_changed'].map((d) =>
        cacheDecisionLabel(d as never)
      )
    ).toEqual([
      'reused',
      'fresh agent: first turn here',
      'fresh agent: settings changed',
      'fresh agent: changed elsewhere',
      'fresh agent: session changed'
    ])
  })
})
