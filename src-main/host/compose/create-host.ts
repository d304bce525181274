/**
 * The composition root: ONE service graph per app (profiles → stores → gateway → agents, memory, delegation) and
 * the dispatcher every transport calls. Electron (src-main/index.ts) and `caduceus serve` differ only in
 * the transport they put in front of it.
 */
import { createDispatcher, type Dispatcher, type EventBus } from '../dispatch'
import { buildGraph, turnHostOf, type GraphOptions, type TurnHost } from './create-turn-host'
import { appVersion } from './root'

export interface HostOptions extends GraphOptions {
  /** Validate every output against the contract (tests). */
  validateOutput?: boolean
}

/** The app's host: what a turn host offers, plus the dispatcher every transport calls and its event bus. */
export interface Host extends TurnHost {
  demo: boolean
  dispatcher: Dispatcher
  /** Names the dispatcher has a handler for (the contract test compares them with the request map). */
  handlerNames: string[]
  bus: EventBus
}

export async function createHost(opts: HostOptions): Promise<Host> {
  const graph = await buildGraph(opts)
  const { live, log, bus, demo, root, services, runtime } = graph
  // Imported here, not at the top: a turn host (run -z, api, cron run) never loads the app's request handlers, the
  // API server, the cron scheduler or their packages (luxon, cron-parser, ws).
  const [{ createChannelsService }, { buildHandlers }] = await Promise.all([
    import('../app-channels'),
    import('../handlers')
  ])
  const version = appVersion()
  const channels = createChannelsService(services, runtime, { live, version })
  const handlers = buildHandlers(services, runtime, version, channels)
  const dispatcher = createDispatcher(handlers, log, {
    validateOutput: opts.validateOutput,
    mask: graph.mask,
    // the pages say why they are still loading while another program holds a profile's state.db
    onLock: (e) => bus.emit('store.lockChanged', e)
  })
  log.info('host', `serving ${root} (${services.stores.list().length} profiles${demo ? ', demo' : ''})`)
  return { ...turnHostOf(graph), demo, dispatcher, handlerNames: Object.keys(handlers), bus }
}
