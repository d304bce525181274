// host/app-channels/: the app's channels besides desk chat — the OpenAI-compatible API server the Gateway page
// switches on and the cron scheduler. A full host imports this when it is built; a turn host never loads it.
export { apiServerGuards, createChannelsService, type ChannelsService } from './channels-service'
export { apiConversations } from './api-conversations'
