/**
 * gateway/ — the agent cache (seed 001), session context and channel capability (seed 003), and the turn
 * runner that resumes and starts desk-chat sessions on cached agents.
 */
export { Gateway, type ChannelTurnInput, type ChannelTurnResult } from './turn-runner'
export type { BuildAgentInput, ContentParts } from './gateway-types'
export { type MemoryIdentitySource } from './cache-busting'
export { getSessionEnv, asyncDeliverySupported, SESSION_VAR_NAMES } from './session-context'
export { DESK_CHAT, API_SERVER, CRON, TURN_CHANNELS } from './channels'
