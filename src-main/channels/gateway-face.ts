/** The gateway names the API server uses, in one place. */
export { TURN_CHANNELS, type ChannelTurnResult, type ContentParts } from '../gateway'
export type { TurnHandle } from '@shared/contract'
