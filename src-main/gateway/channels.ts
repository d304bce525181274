/**
 * Channels a turn can arrive on and whether each can deliver a background completion after the turn
 * ends. Desk chat keeps a live window and event stream, so it can; the request/response API server
 * cannot, and every API-server entry binds through `bindApiServerSession`, which hardwires that.
 */
import { declareStatelessChannel, runInFreshContext, setSessionVars, type SessionVars } from './session-context'

export interface ChannelCapability {
  platform: string
  supportsAsyncDelivery: boolean
}

export const DESK_CHAT: ChannelCapability = { platform: 'desktop', supportsAsyncDelivery: true }
export const API_SERVER: ChannelCapability = { platform: 'api_server', supportsAsyncDelivery: false }

export interface ChannelBinding {
  chatId?: string
  sessionKey?: string
  sessionId?: string
  profile?: string
  userId?: string
}

/** Session vars for a desk-chat turn. */
function deskChatVars(b: ChannelBinding): SessionVars {
  return {
    platform: DESK_CHAT.platform,
    source: 'desktop',
    chatId: b.chatId ?? b.sessionId ?? '',
    sessionKey: b.sessionKey ?? '',
    sessionId: b.sessionId ?? '',
    uiSessionId: b.sessionId ?? '',
    profile: b.profile ?? '',
    userId: b.userId ?? '',
    asyncDelivery: DESK_CHAT.supportsAsyncDelivery
  }
}

/** The single chokepoint for API-server turns: async delivery is always off (upstream #10760). */
function bindApiServerSession(b: ChannelBinding = {}): void {
  setSessionVars({
    platform: API_SERVER.platform,
    chatId: b.chatId ?? '',
    sessionKey: b.sessionKey ?? '',
    sessionId: b.sessionId ?? '',
    profile: b.profile ?? '',
    asyncDelivery: false
  })
}

/** A one-shot `run -z`: prints one reply and exits, nothing drains a completion afterwards (seed 003). */
export const ONE_SHOT: ChannelCapability = { platform: 'cli', supportsAsyncDelivery: false }
/** A cron run: its reply is the job output; there is no turn left to re-enter (seed 003). */
export const CRON: ChannelCapability = { platform: 'cron', supportsAsyncDelivery: false }

/** How a turn arrived: the session source it records and how it binds the per-turn session context. */
export interface TurnChannel {
  capability: ChannelCapability
  /** `sessions.source` for sessions this channel creates. */
  source: string
  /** Called inside the turn's fresh session context, before the agent runs. */
  bind(b: ChannelBinding): void
}

export const TURN_CHANNELS = {
  desk: { capability: DESK_CHAT, source: 'desktop', bind: (b) => setSessionVars(deskChatVars(b)) },
  // Every API-server turn goes through the one chokepoint, so its capability can never be left on.
  api: { capability: API_SERVER, source: 'api_server', bind: (b) => bindApiServerSession(b) },
  // A chat UI's background task on the API server (title, tags, follow-ups: channels/task-request.ts): the same
  // channel, but its session is recorded as upstream records an internal call's, `source = 'tool'`, which no human
  // session list of either program shows while it runs (the server then folds it into its conversation or hides it).
  apiTask: { capability: API_SERVER, source: 'tool', bind: (b) => bindApiServerSession(b) },
  // Upstream binds ONLY the capability for one-shot runs: no session vars, no engaged latch.
  oneShot: { capability: ONE_SHOT, source: 'cli', bind: () => declareStatelessChannel() },
  cron: {
    capability: CRON,
    source: 'cron',
    bind: (b) =>
      setSessionVars({
        platform: CRON.platform,
        source: 'cron',
        sessionId: b.sessionId ?? '',
        profile: b.profile ?? '',
        cronSession: '1',
        asyncDelivery: false
      })
  }
} satisfies Record<string, TurnChannel>

/** Run fn in a fresh session context bound for `channel`; the binding ends with fn (never outlives the turn). */
export function runOnChannel<T>(channel: TurnChannel, b: ChannelBinding, fn: () => T): T {
  return runInFreshContext(() => {
    channel.bind(b)
    return fn()
  })
}
