/** Assembles `DelegateDeps` for one profile store with the process-wide defaults filled in. */
import { asyncDeliverySupported } from '../gateway'
import type { ChildFactory } from './children'
import { homeOfDb, loadDelegationConfig, type DelegationConfig } from './config'
import { BackgroundPool, type DelegateDeps, type DelegationCompletion } from './deps'
import { liveSubagents, type LiveSubagentRegistry } from './live-registry'
import { createDelegationRegistry, type RegistryOptions } from './registry'
import type { DelegationStore } from './types'

/** One pool per process: the async cap counts background units across every profile and parent. */
export const sharedBackgroundPool = new BackgroundPool()

export interface DelegationServiceOptions {
  profile: string
  store: DelegationStore
  buildChild: ChildFactory
  /** Channel capability gate; defaults to the gateway's session context (§4.5). */
  asyncDeliverySupported?: () => boolean
  live?: LiveSubagentRegistry
  pool?: BackgroundPool
  config?: () => DelegationConfig
  registry?: RegistryOptions
  onCompletion?: (c: DelegationCompletion) => void | Promise<void>
  onUpdate?: DelegateDeps['onUpdate']
  log?: DelegateDeps['log']
}

export function createDelegateDeps(opts: DelegationServiceOptions): DelegateDeps {
  const home = homeOfDb(opts.store.path)
  return {
    profile: opts.profile,
    store: opts.store,
    registry: createDelegationRegistry(opts.store, { log: opts.log, ...opts.registry }),
    buildChild: opts.buildChild,
    live: opts.live ?? liveSubagents,
    asyncDeliverySupported: opts.asyncDeliverySupported ?? asyncDeliverySupported,
    config: opts.config ?? (() => loadDelegationConfig(home)),
    pool: opts.pool ?? sharedBackgroundPool,
    onCompletion: opts.onCompletion,
    onUpdate: opts.onUpdate,
    log: opts.log
  }
}
