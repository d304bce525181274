import { afterEach, describe, expect, it } from 'vitest'
import { API_SERVER, DESK_CHAT, bindApiServerSession, deskChatVars } from './channels'
import {
  asyncDeliverySupported,
  clearSessionVars,
  declareStatelessChannel,
  getSessionEnv,
  isSessionContextEngaged,
  resetSessionVars,
  runWithSessionContext,
  setSessionVars
} from './session-context'

afterEach(() => {
  resetSessionVars()
  delete process.env.HERMES_KANBAN_TASK
})

describe('async delivery capability', () => {
  // seed 003: test_default_unbound_is_supported
  it('default unbound is supported', () => {
    expect(asyncDeliverySupported()).toBe(true)
  })

  // seed 003: test_set_true_is_supported
  it('bound true is supported and platform stays readable', () => {
    const t = setSessionVars({
      platform: 'telegram',
      chatId: '123',
      sessionKey: 'telegram:private:123',
      asyncDelivery: true
    })
    try {
      expect(asyncDeliverySupported()).toBe(true)
      expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe('telegram')
    } finally {
      clearSessionVars(t)
    }
  })

  // seed 003: test_set_false_is_unsupported
  it('bound false is unsupported while the platform stays readable', () => {
    const t = setSessionVars({ platform: 'api_server', chatId: 'sess1', sessionKey: 'sess1', asyncDelivery: false })
    try {
      expect(asyncDeliverySupported()).toBe(false)
      expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe('api_server')
    } finally {
      clearSessionVars(t)
    }
  })

  // seed 003: test_omitted_arg_defaults_supported
  it('omitting the capability keeps it supported', () => {
    const t = setSessionVars({ platform: 'discord', chatId: '9' })
    try {
      expect(asyncDeliverySupported()).toBe(true)
    } finally {
      clearSessionVars(t)
    }
  })

  // seed 003: test_clear_resets_to_default_supported
  it('clear falls back to default-supported, not opted-out', () => {
    const t = setSessionVars({ platform: 'api_server', sessionKey: 's1', asyncDelivery: false })
    expect(asyncDeliverySupported()).toBe(false)
    clearSessionVars(t)
    expect(asyncDeliverySupported()).toBe(true)
  })

  it('HERMES_KANBAN_TASK in the env forces unsupported', () => {
    process.env.HERMES_KANBAN_TASK = 'task-1'
    expect(asyncDeliverySupported()).toBe(false)
  })
})

describe('session env', () => {
  it('a cleared var masks the env; an unset var falls back to it', () => {
    process.env.HERMES_SESSION_CHAT_NAME = 'from-env'
    try {
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME')).toBe('from-env')
      const t = setSessionVars({ platform: 'x', chatName: 'bound' })
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME')).toBe('bound')
      clearSessionVars(t)
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME', 'dflt')).toBe('')
      resetSessionVars()
      expect(getSessionEnv('HERMES_SESSION_CHAT_NAME')).toBe('from-env')
      expect(getSessionEnv('HERMES_SESSION_NOT_A_VAR', 'dflt')).toBe('dflt')
    } finally {
      delete process.env.HERMES_SESSION_CHAT_NAME
    }
  })

  it('concurrent turns each see only their own context', async () => {
    const seen: string[] = []
    const turn = (platform: string, delivery: boolean) =>
      runWithSessionContext({ platform, asyncDelivery: delivery }, async () => {
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
    resetSessionVars()
    expect(asyncDeliverySupported()).toBe(true)
    declareStatelessChannel()
    expect(asyncDeliverySupported()).toBe(false)
  })

  // seed 003: test_declare_does_not_engage_full_session_context
  it('declaring a stateless channel does not latch the engaged flag', async () => {
    // A fresh process, so the latch starts from its true initial state.
    const {
      isSessionContextEngaged: engagedFresh,
      declareStatelessChannel: declareFresh,
      setSessionVars: setFresh
    } = (await import(
      /* @vite-ignore */ `./session-context.ts?fresh=${Date.now()}`
    )) as typeof import('./session-context')
    expect(engagedFresh()).toBe(false)
    declareFresh()
    expect(engagedFresh()).toBe(false)
    setFresh({ platform: 'desktop' })
    expect(engagedFresh()).toBe(true)
    // And in this module: declaring leaves whatever the latch was.
    const before = isSessionContextEngaged()
    declareStatelessChannel()
    expect(isSessionContextEngaged()).toBe(before)
  })
})

describe('channel capability flags', () => {
  // seed 003: test_base_default_true
  it('channels default to async delivery supported; desk chat supports it', () => {
    expect(asyncDeliverySupported()).toBe(true) // no channel bound: the base default
    expect(DESK_CHAT.supportsAsyncDelivery).toBe(true)
    runWithSessionContext(deskChatVars({ sessionId: 's1', sessionKey: 'agent:default:desktop:s1' }), () => {
      expect(asyncDeliverySupported()).toBe(true)
      expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe('desktop')
      expect(getSessionEnv('HERMES_SESSION_KEY')).toBe('agent:default:desktop:s1')
    })
  })

  // seed 003: test_api_server_false
  it('the API server channel does not support async delivery', () => {
    expect(API_SERVER.supportsAsyncDelivery).toBe(false)
  })

  // seed 003: test_api_server_bind_chokepoint_hardwires_no_delivery
  it('bindApiServerSession hardwires no delivery', () => {
    const t = bindApiServerSession({ chatId: 'c1', sessionKey: 'sk1', sessionId: 'sid1' })
    try {
      expect(asyncDeliverySupported()).toBe(false)
      expect(getSessionEnv('HERMES_SESSION_PLATFORM')).toBe('api_server')
    } finally {
      clearSessionVars(t)
    }
  })

  // seed 003: test_api_server_binding_does_not_outlive_turn
  it('the API-server decision is turn-scoped, not stuck to the session', () => {
    const t1 = bindApiServerSession({ sessionKey: 'shared-key' })
    expect(asyncDeliverySupported()).toBe(false)
    clearSessionVars(t1)
    const t2 = setSessionVars({ platform: 'telegram', sessionKey: 'shared-key', asyncDelivery: true })
    try {
      expect(asyncDeliverySupported()).toBe(true)
    } finally {
      clearSessionVars(t2)
    }
  })
})
