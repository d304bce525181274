import type { HandlerMap } from '../dispatch'
import type { Runtime, Services } from '../services'
import type { ChannelsService } from '../app-channels'
import { agentHandlers } from './agent'
import { appHandlers } from './app'
import { delegationHandlers } from './delegation'
import { memoryHandlers } from './memory'
import { memoryProviderHandlers } from './memory-providers'
import { sessionHandlers } from './sessions'
import { sessionAdminHandlers } from './sessions-admin'
import { sessionBulkHandlers } from './sessions-bulk'
import { priceHandlers } from './prices'
import { channelHandlers } from './channels'

/** Exactly one handler per contract request; the object literal's type makes a missing one a compile error. */
export function buildHandlers(s: Services, rt: Runtime, version: string, channels: ChannelsService): HandlerMap {
  return {
    ...appHandlers(s, version),
    ...sessionHandlers(s),
    ...sessionAdminHandlers(s),
    ...sessionBulkHandlers(s),
    ...agentHandlers(s, rt.gateway, rt.vault),
    ...delegationHandlers(s, rt.delegation, rt.vault),
    ...memoryHandlers(s, rt.memory),
    ...priceHandlers(s),
    ...channelHandlers(s, channels),
    ...memoryProviderHandlers(s, rt.providers, rt.vault)
  }
}
