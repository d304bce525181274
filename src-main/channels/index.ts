/**
 * channels/ — stateless channels that talk to the profile's agent from outside the desk: the
 * OpenAI-compatible API server (hermes-channels §1). Its turns go through the gateway's API-server
 * binding (seed 003); one-shot and cron turns use the gateway's channels directly.
 */
export { startApiServer, type ApiServer, type ApiServerOptions, type ApiServerStats } from './api-server'
export { resolveApiServerSettings, isLoopbackHost, ApiServerConfigError, DEFAULT_API_PORT, DEFAULT_API_HOST } from './settings'
export type { ChannelGateway } from './context'
