/**
 * channels/ — stateless channels that talk to the profile's agent from outside the desk: the
 * OpenAI-compatible API server (hermes-channels §1). Its turns go through the gateway's API-server
 * binding (seed 003); one-shot and cron turns use the gateway's channels directly.
 */
export { startApiServer, type ApiServer } from './api-server'
export type { ConversationSessions, StoredTurn } from './conversation'
