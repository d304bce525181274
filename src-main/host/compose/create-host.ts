/**
 * The composition root: ONE service graph per app (profiles → stores → gateway → agents, memory, delegation) and
 * the dispatcher every transport calls. Electron (src-main/index.ts) and `caduceus serve` differ only in
 * the transport they put in front of it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { setSqliteNativeBinding, writeDemoHome } from '../../store'
import { join } from 'node:path'
import { createDispatcher, EventBus, type Dispatcher } from '../dispatch'
import { createLogger } from '../log'
import type { Logger } from '@shared/contract/log'
import { appDir, logPaths, resolveRoot } from './root'
import {
  createChannelsService,
  createStoreServices,
  wireRuntime,
  type Runtime,
  type SecretCipher,
  type Services
} from '../services'
import { buildHandlers } from '../handlers'

export interface HostOptions {
  home?: string | null
  demo?: boolean
  headless: boolean
  /** false for one-shot CLI reads: no watchers, no agents, no timers. */
  live?: boolean
  /** Electron-ABI better-sqlite3 build (toolchain.md §7). */
  nativeBinding?: string
  /** OS keychain encryption for API keys (Electron safeStorage), when available. */
  secretCipher?: SecretCipher
  /** Validate every output against the contract (tests). */
  validateOutput?: boolean
  log?: Logger
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

const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(join(appDir(), 'package.json'), 'utf8')).version
  } catch {
    return '0.0.0'
  }
})()

export async function createHost(opts: HostOptions): Promise<Host> {
  const live = opts.live !== false
  if (opts.nativeBinding) setSqliteNativeBinding(opts.nativeBinding)
  const log = opts.log ?? createLogger({ ...logPaths(), console: false })
  const bus = new EventBus()
  const demo = opts.demo === true
  const { root } = resolveRoot(opts.home ?? (demo ? join(logPaths().logFile, '../../demo-home') : null))
  // A demo home is generated only into an empty root: never over a real one.
  if (demo && !existsSync(join(root, 'state.db')))
    await writeDemoHome(root, { seed: 7, now: Math.floor(Date.now() / 1000) })
  const services = createStoreServices({ root, demo, headless: opts.headless, live, log, bus })
  const runtime = await wireRuntime(services, {
    live,
    demo,
    nativeBinding: opts.nativeBinding,
    secretCipher: opts.secretCipher
  })
  const channels = createChannelsService(services, runtime, { live })
  const handlers = buildHandlers(services, runtime, VERSION, channels)
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
