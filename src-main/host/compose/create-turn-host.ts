import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '@shared/contract/log'
import { writeDemoHome } from '../../store'
import { SecretMask } from '../../secrets'
import { EventBus } from '../dispatch'
import { createLogger } from '../log'
import { createStoreServices, wireRuntime, type Runtime, type SecretCipher, type Services } from '../services'
import { logPaths, resolveRoot } from './root'

/** How a host is built: its root, whether it is live, its secret cipher and logger. */
export interface GraphOptions {
  home?: string | null
  demo?: boolean
  headless: boolean
  /** false for one-shot CLI reads: no watchers, no agents, no timers. */
  live?: boolean
  /** Electron-ABI better-sqlite3 build (toolchain.md §7). */
  nativeBinding?: string
  /** OS keychain encryption for API keys (Electron safeStorage), when available. */
  secretCipher?: SecretCipher
  log?: Logger
}

/** The graph every host shares: log, bus, root (a generated demo home), stores + watchers, and the agent runtime. */
export async function buildGraph(opts: GraphOptions) {
  const live = opts.live !== false
  // The graph's own secret mask: its vault fills it, its logger, bus and dispatcher mask with it, and closing the
  // graph takes its secrets out of the process's last resort (secrets/redact.ts).
  const mask = new SecretMask()
  const log = opts.log ?? createLogger({ ...logPaths(), console: false, mask })
  const bus = new EventBus(mask)
  const demo = opts.demo === true
  const { root, profile } = resolveRoot(opts.home ?? (demo ? join(logPaths().logFile, '../../demo-home') : null))
  // A demo home is generated only into an empty root: never over a real one.
  if (demo && !existsSync(join(root, 'state.db')))
    await writeDemoHome(root, { seed: 7, now: Math.floor(Date.now() / 1000), nativeBinding: opts.nativeBinding })
  const services = createStoreServices({
    root,
    profile,
    demo,
    headless: opts.headless,
    live,
    log,
    bus,
    nativeBinding: opts.nativeBinding
  })
  const runtime = await wireRuntime(services, {
    live,
    demo,
    nativeBinding: opts.nativeBinding,
    secretCipher: opts.secretCipher,
    mask
  })
  return { live, log, bus, demo, root, services, runtime, mask }
}

/** What a CLI channel needs to run turns (`run -z`, `api`, `cron run`): the gateway over the profiles' stores. */
export interface TurnHost {
  root: string
  log: Logger
  /** The gateway the channel runs its turns through. */
  gateway: Runtime['gateway']
  /** The graph's vault (a cron script's secrets, the API server's settings, the runtime `run` reports). */
  vault: Runtime['vault']
  /** The profiles' stores (the API server's conversation lookups). */
  stores: Services['stores']
  /** Home folder of a served profile; CaduceusError not_found for an unknown one. */
  homeOf(profile: string): string
  close(): Promise<void>
}

/**
 * A one-process channel host: the stores and the agent runtime, and none of what only the app's requests use (no
 * handlers, no dispatcher, no channels service or cron scheduler, no watchers, no timers).
 */
export async function createTurnHost(opts: { home?: string | null; log?: Logger }): Promise<TurnHost> {
  return turnHostOf(await buildGraph({ home: opts.home, headless: true, live: false, log: opts.log }))
}

/** The turn-running face of a built graph (the app's host offers the same, plus its dispatcher). */
export function turnHostOf(g: Awaited<ReturnType<typeof buildGraph>>): TurnHost {
  return {
    root: g.root,
    log: g.log,
    gateway: g.runtime.gateway,
    vault: g.runtime.vault,
    stores: g.services.stores,
    homeOf: (profile) => g.services.homeOf(profile),
    close: async () => {
      try {
        await g.services.close()
      } finally {
        g.mask.close()
      }
    }
  }
}
