/**
 * Assembles `DelegateDeps` for one profile store. The live-subagent registry and the background pool belong to the
 * host graph, not the process: the host passes the same two to every profile (the async cap counts background
 * units across every profile and parent); a caller that passes none gets its own.
 */
import { asyncDeliverySupported } from '../gateway'
import type { ChildFactory } from './children'
import { homeOfDb, loadDelegationConfig, type DelegationConfig } from './config'
import { BackgroundPool, type DelegateDeps, type DelegationCompletion } from './deps'
import { LiveSubagentRegistry } from './live-registry'
import { createDelegationRegistry, type RegistryOptions } from './registry'
import type { DelegationStore } from './types'

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
  saveAndRun?: DelegateDeps['saveAndRun']
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
    live: opts.live ?? new LiveSubagentRegistry(),
    asyncDeliverySupported: opts.asyncDeliverySupported ?? asyncDeliverySupported,
    config: opts.config ?? (() => loadDelegationConfig(home)),
    pool: opts.pool ?? new BackgroundPool(),
    saveAndRun: opts.saveAndRun,
    onCompletion: opts.onCompletion,
    onUpdate: opts.onUpdate,
    log: opts.log
  }
}
