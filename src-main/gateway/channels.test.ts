// The channel bindings every turn runs under (seed 003): stateless channels switch async delivery off for
// their turn only, the one-shot binds ONLY the capability, and nothing outlives the turn.
import { describe, expect, it } from 'vitest'
import { asyncDeliverySupported, getSessionEnv, TURN_CHANNELS } from './index'
import { runOnChannel } from './channels'

describe('turn channels', () => {
  // seed 003: test_declare_stateless_channel_does_not_engage_session_context
  it('one-shot: unsupported inside the turn, no session vars bound', async () => {
    const inside = await runOnChannel(TURN_CHANNELS.oneShot, { sessionId: 's1', profile: 'default' }, async () => {
      await new Promise((r) => setTimeout(r, 1))
      return { supported: asyncDeliverySupported(), platform: getSessionEnv('HERMES_SESSION_PLATFORM', '<unset>') }
    })
    expect(inside).toEqual({ supported: false, platform: '<unset>' })
    expect(asyncDeliverySupported()).toBe(true)
  })

  // seed 003: test_bind_api_server_session_marks_unsupported
  it('api server: platform api_server, unsupported, and gone after the turn', () => {
    const inside = runOnChannel(TURN_CHANNELS.api, { sessionId: 's2' }, () => [
      getSessionEnv('HERMES_SESSION_PLATFORM'),
      asyncDeliverySupported()
    ])
    expect(inside).toEqual(['api_server', false])
    expect(asyncDeliverySupported()).toBe(true)
    expect(getSessionEnv('HERMES_SESSION_PLATFORM')).not.toBe('api_server')
  })

  it('cron: marked as a cron session, unsupported; desk chat stays supported; concurrent turns do not mix', async () => {
    const cron = runOnChannel(TURN_CHANNELS.cron, { sessionId: 'c1' }, async () => {
      await new Promise((r) => setTimeout(r, 5))
      return [getSessionEnv('HERMES_CRON_SESSION'), asyncDeliverySupported()]
    })
    const desk = runOnChannel(TURN_CHANNELS.desk, { sessionId: 'd1' }, async () => {
      await new Promise((r) => setTimeout(r, 1))
      return [getSessionEnv('HERMES_SESSION_PLATFORM'), asyncDeliverySupported()]
    })
    expect(await cron).toEqual(['1', false])
    expect(await desk).toEqual(['desktop', true])
    expect(TURN_CHANNELS.api.source).toBe('api_server')
    expect(TURN_CHANNELS.oneShot.source).toBe('cli')
    expect(TURN_CHANNELS.cron.source).toBe('cron')
  })
})
