// Seed 003 (async-delivery gate): each case binds inside a fresh turn context, the way runOnChannel does,
// so nothing leaks between cases and "cleared" means the turn's binding ended.
import { afterEach, describe, expect, it } from 'vitest'
import { API_SERVER, DESK_CHAT, runOnChannel, TURN_CHANNELS } from './channels'
import {
  asyncDeliverySupported,
  declareStatelessChannel,
  getSessionEnv,
  runInFreshContext,
  setSessionVars,
  type SessionVars
} from './session-context'

afterEach(() => {
  delete process.env.HERMES_KANBAN_TASK
})

/** A turn bound to `vars` (a channel's bind step), returning what fn saw. */
const inTurn = <T>(vars: SessionVars, fn: () => T): T =>
  runInFreshContext(() => {
    setSessionVars(vars)
    return fn()
  })

describe('async delivery capability', () => {
  // seed 003: test_default_unbound_is_supported
  it('default unbound is supported', () => {
    expect(asyncDeliverySupported()).toBe(true)
  })

  // seed 003: test_set_true_is_supported
  it('bound true is supported and platform stays readable', () => {
    const vars = { platform: 'telegram', chatId: '123', sessionKey: 'telegram:private:123', asyncDelivery: true }
    expect(inTurn(vars, () => [asyncDeliverySupported(), getSessionEnv('HERMES_SESSION_PLATFORM')])).toEqual([
      true,
      'telegram'
    ])
  })

  // seed 003: test_set_false_is_unsupported
  it('bound false is unsupported while the platform stays readable', () => {
    const vars = { platform: 'api_server', chatId: 'sess1', sessionKey: 'sess1', asyncDelivery: false }
    expect(inTurn(vars, () => [asyncDeliverySupported(), getSessionEnv('HERMES_SESSION_PLATFORM')])).toEqual([
      false,
      'api_server'
    ])
  })

  // seed 003: test_omitted_arg_defaults_supported
  // NO USER ACTION REACHES THIS: every channel states its capability when it binds (channels.ts TURN_CHANNELS:
  // desk true, API server / cron false, one-shot declares itself stateless), as upstream's own gateway always
  // passes async_delivery (gateway/run.py, the set_session_vars call beside `supports_async_delivery`). The
  // omitted-argument default is upstream's back-compat for out-of-tree callers of set_session_vars; Caduceus
  // has none (plugins cannot bind session vars). Kept so the default stays "supported", never "off".
  it('omitting the capability keeps it supported', () => {
    expect(inTurn({ platform: 'discord', chatId: '9' }, asyncDeliverySupported)).toBe(true)
  })

  // seed 003: test_clear_resets_to_default_supported (the binding ends with its turn)
  it('after an opted-out turn ends, the default is supported again, not opted-out', () => {
    expect(inTurn({ platform: 'api_server', sessionKey: 's1', asyncDelivery: false }, asyncDeliverySupported)).toBe(
      false
    )
    expect(asyncDeliverySupported()).toBe(true)
  })

  it('HERMES_KANBAN_TASK in the env forces unsupported', () => {
    process.env.HERMES_KANBAN_TASK = 'task-1'
    expect(asyncDeliverySupported()).toBe(false)
  })
})

describe('session env', () => {
  it('a bound turn masks the env for vars it leaves unset; outside any turn the env shows through', () => {
    process.env.HERMES_SESSION_CHAT_NAME = 'from-env'
    try {
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME')).toBe('from-env')
      expect(inTurn({ platform: 'x', chatName: 'bound' }, () => getSessionEnv('HERMES_SESSION_CHAT_NAME'))).toBe(
        'bound'
      )
      expect(inTurn({ platform: 'x' }, () => getSessionEnv('HERMES_SESSION_CHAT_NAME', 'dflt'))).toBe('')
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME')).toBe('from-env')
      expect(getSessionEnv('HERMES_SESSION_NOT_A_VAR', 'dflt')).toBe('dflt')
    } finally {
      delete process.env.HERMES_SESSION_CHAT_NAME
    }
  })

  it('concurrent turns each see only their own context', async () => {
    const seen: string[] = []
    const turn = (platform: string, delivery: boolean) =>
      inTurn({ platform, asyncDelivery: delivery }, async () => {
        await new Promise((r) => setTimeout(r, 5))
        seen.push(`${getSessionEnv('HERMES_SESSION_PLATFORM')}:${asyncDeliverySupported()}`)
      })
    await Promise.all([turn('desktop', true), turn('api_server', false)])
    expect(seen.sort()).toEqual(['api_server:false', 'desktop:true'])
    // Nothing leaked into the process-level context.
    expect(asyncDeliverySupported()).toBe(true)
    expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe(process.env.HERMES_SESSION_PLATFORM ?? '')
  })
})

describe('stateless channels', () => {
  // seed 003: test_declare_stateless_channel_disables_async_delivery
  it('declareStatelessChannel disables async delivery', () => {
    runInFreshContext(() => {
      expect(asyncDeliverySupported()).toBe(true)
      declareStatelessChannel()
      expect(asyncDeliverySupported()).toBe(false)
    })
  })

  // seed 003: test_declare_does_not_engage_full_session_context. Upstream's latch makes the context, not the
  // env, authoritative; here that is "a bound var masks the env", so: declaring binds no var, the env shows.
  it('declaring a stateless channel binds only the capability: the env stays authoritative', () => {
    process.env.HERMES_SESSION_KEY = 'ambient'
    try {
      const seen = runInFreshContext(() => {
        declareStatelessChannel()
        return [asyncDeliverySupported(), getSessionEnv('HERMES_SESSION_KEY')]
      })
      expect(seen).toEqual([false, 'ambient'])
      expect(inTurn({ platform: 'desktop' }, () => getSessionEnv('HERMES_SESSION_KEY'))).toBe('')
    } finally {
      delete process.env.HERMES_SESSION_KEY
    }
  })
})

describe('channel capability flags', () => {
  // seed 003: test_base_default_true
  it('channels default to async delivery supported; desk chat supports it', () => {
    expect(asyncDeliverySupported()).toBe(true) // no channel bound: the base default
    expect(DESK_CHAT.supportsAsyncDelivery).toBe(true)
    runOnChannel(TURN_CHANNELS.desk, { sessionId: 's1', sessionKey: 'agent:default:desktop:s1' }, () => {
      expect(asyncDeliverySupported()).toBe(true)
      expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe('desktop')
      expect(getSessionEnv('HERMES_SESSION_KEY')).toBe('agent:default:desktop:s1')
    })
  })

  // seed 003: test_api_server_false
  it('the API server channel does not support async delivery', () => {
    expect(API_SERVER.supportsAsyncDelivery).toBe(false)
    expect(TURN_CHANNELS.api.capability).toBe(API_SERVER)
  })

  // seed 003: test_api_server_bind_chokepoint_hardwires_no_delivery
  it('the API-server channel hardwires no delivery', () => {
    const seen = runOnChannel(TURN_CHANNELS.api, { chatId: 'c1', sessionKey: 'sk1', sessionId: 'sid1' }, () => [
      asyncDeliverySupported(),
      getSessionEnv('HERMES_SESSION_PLATFORM')
    ])
    expect(seen).toEqual([false, 'api_server'])
  })

  // seed 003: test_api_server_binding_does_not_outlive_turn
  it('the API-server decision is turn-scoped, not stuck to the session', () => {
    expect(runOnChannel(TURN_CHANNELS.api, { sessionKey: 'shared-key' }, asyncDeliverySupported)).toBe(false)
    const vars = { platform: 'telegram', sessionKey: 'shared-key', asyncDelivery: true }
    expect(inTurn(vars, asyncDeliverySupported)).toBe(true)
  })
})
