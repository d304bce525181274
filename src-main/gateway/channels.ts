/**
 * Channels a turn can arrive on and whether each can deliver a background completion after the turn
 * ends. Desk chat keeps a live window and event stream, so it can; the request/response API server
 * cannot, and every API-server entry binds through `bindApiServerSession`, which hardwires that.
 */
import { setSessionVars, type SessionTokens, type SessionVars } from './session-context'

export interface ChannelCapability {
  platform: string
  supportsAsyncDelivery: boolean
}

/** Default for any channel that does not say otherwise (upstream BasePlatformAdapter). */
export const BASE_CHANNEL: ChannelCapability = { platform: '', supportsAsyncDelivery: true }
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
export function deskChatVars(b: ChannelBinding): SessionVars {
  return {
    platform: DESK_CHAT.platform, source: 'desktop', chatId: b.chatId ?? b.sessionId ?? '', sessionKey: b.sessionKey ?? '',
    sessionId: b.sessionId ?? '', uiSessionId: b.sessionId ?? '', profile: b.profile ?? '', userId: b.userId ?? '',
    asyncDelivery: DESK_CHAT.supportsAsyncDelivery
  }
}

/** The single chokepoint for API-server turns: async delivery is always off (upstream #10760). */
export function bindApiServerSession(b: ChannelBinding = {}): SessionTokens {
  return setSessionVars({
    platform: API_SERVER.platform, chatId: b.chatId ?? '', sessionKey: b.sessionKey ?? '', sessionId: b.sessionId ?? '',
    profile: b.profile ?? '', asyncDelivery: false
  })
}
