/**
 * gateway/ — the agent cache (seed 001), session context and channel capability (seed 003), and the turn
 * runner that resumes and starts desk-chat sessions on cached agents.
 */
export { Gateway, type ChannelTurnInput, type ChannelTurnResult } from './turn-runner'
export type {
  GatewayOptions, GatewayStore, GatewayStores, BuildAgentInput, TurnAgent, TurnDeltaLike, TurnResultLike
} from './gateway-types'
export {
  AgentCache, type AgentCacheOptions, type CacheEntry, type InsertOptions, type LookupResult, type ProfileOwner, type SessionProbe
} from './agent-cache'
export {
  AGENT_PENDING, initCachedAgentForTurn, MAX_INTERRUPT_DEPTH, DEFAULT_CACHE_CAP, DEFAULT_IDLE_TTL_SECONDS, type CacheableAgent, type Pending
} from './cacheable'
export { releaseSoft, commitThenReleaseSoft, releaseHard } from './release'
export { agentConfigSignature, type SignatureInput, type SignatureRuntime } from './signature'
export { TurnConfigResolver, type TurnConfig, type TurnConfigDeps } from './turn-config'
export { storeProbe } from './store-probe'
export {
  extractCacheBustingConfig, staticCacheBustingConfig, dynamicCacheBustingConfig, CACHE_BUSTING_CONFIG_KEYS, MemoryIdentityResolver, type CacheBustingOptions, type IdentityProvider, type MemoryIdentitySource
} from './cache-busting'
export {
  setSessionVars, clearSessionVars, resetSessionVars, getSessionEnv, declareStatelessChannel, asyncDeliverySupported,
  isSessionContextEngaged, runWithSessionContext, SESSION_VAR_NAMES, type SessionVars, type SessionTokens
} from './session-context'
export {
  BASE_CHANNEL, DESK_CHAT, API_SERVER, ONE_SHOT, CRON, TURN_CHANNELS, runOnChannel, bindApiServerSession, deskChatVars,
  type ChannelCapability, type ChannelBinding, type TurnChannel
} from './channels'
export { sessionKeyFor, parseSessionKey } from './session-key'
export { captureLogger, silentLogger, type GatewayLogger, type CapturedRecord, type LogLevel } from './logger'
