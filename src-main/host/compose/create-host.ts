/**
 * The composition root: ONE service graph per app (profiles → stores → gateway → agents, memory, delegation) and
 * the dispatcher every transport calls. Electron (src-main/index.ts) and `caduceus serve` differ only in
 * the transport they put in front of it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '@shared/contract/log'
import { createDispatcher, type Dispatcher, type EventBus } from '../dispatch'
import type { Runtime, Services } from '../services'
import { buildGraph, type GraphOptions } from './create-turn-host'
import { appDir } from './root'

export interface HostOptions extends GraphOptions {
  /** Validate every output against the contract (tests). */
  validateOutput?: boolean
}

export interface Host {
  root: string
  demo: boolean
  dispatcher: Dispatcher
  /** Names the dispatcher has a handler for (the contract test compares them with the request map). */
  handlerNames: string[]
  bus: EventBus
  log: Logger
  /** The profiles' stores, for CLI commands that stream (sessions export). */
  stores: Services['stores']
  /** The gateway every channel runs its turns through (CLI channels: `run -z`, `api`, `cron run`). */
  gateway: Runtime['gateway']
  /** Home folder of a served profile; CaduceusError not_found for an unknown one. */
  homeOf(profile: string): string
  close(): Promise<void>
}

/** The app's version, read when a full host is built (a module-level read would run for every importer). */
function appVersion(): string {
  try {
    return JSON.parse(readFileSync(join(appDir(), 'package.json'), 'utf8')).version
  } catch {
    return '0.0.0'
  }
}

export async function createHost(opts: HostOptions): Promise<Host> {
  const { live, log, bus, demo, root, services, runtime } = await buildGraph(opts)
  // Imported here, not at the top: a turn host (run -z, api, cron run) never loads the app's request handlers, the
  // API server, the cron scheduler or their packages (luxon, cron-parser, ws).
  const [{ createChannelsService }, { buildHandlers }] = await Promise.all([
    import('../app-channels'),
    import('../handlers')
  ])
  const channels = createChannelsService(services, runtime, { live })
  const handlers = buildHandlers(services, runtime, appVersion(), channels)
  const dispatcher = createDispatcher(handlers, log, { validateOutput: opts.validateOutput })
  log.info('host', `serving ${root} (${services.stores.list().length} profiles${demo ? ', demo' : ''})`)
  return {
    root,
    demo,
    dispatcher,
    handlerNames: Object.keys(handlers),
    bus,
    log,
    gateway: runtime.gateway,
    stores: services.stores,
    homeOf: (profile) => services.homeOf(profile),
    close: () => services.close()
  }
}
