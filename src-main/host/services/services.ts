import { existsSync, watch, type FSWatcher, mkdirSync } from 'node:fs'
import { CaduceusError, PARENT_LOOKUP_MAX, type EventPayload } from '@shared/contract'
import { join } from 'node:path'
import { isBusy, SessionWatcher, StoreRegistry, type SessionStore } from '../../store'
import { claimProfiles, setDefaultRoot } from '../../scope'
import type { EventBus } from '../dispatch'
import type { Logger } from '@shared/contract/log'
import { journalModeSetting, writeRetryMs } from './write-retry'
import { errorMessage } from '@shared/contract/errors'
import { CronJobsWatch, MemoryFolderWatch } from './memory-watch'
import { memoryFileProblems } from '../../memory'
import { LockedOutWatch } from './lock-watch'

export interface Services {
  root: string
  demo: boolean
  headless: boolean
  log: Logger
  bus: EventBus
  stores: StoreRegistry
  /** Home folder of a served profile; a typed not_found error for an unknown one. */
  homeOf(profile: string): string
  /**
   * The profile the user's home names, as upstream's CLI and dashboard would act on it: the profile whose folder
   * the host was pointed at, else the one `<root>/active_profile` names (read each time: `hermes profile use`
   * changes it), else — or when that profile is not on disk — `default`.
   */
  activeProfile(): string
  /** Extra teardown registered by the parts wired after the store (gateway, memory, delegation, demo provider). */
  onClose(fn: () => void | Promise<void>): void
  close(): Promise<void>
}

/**
 * `sessions.changed` as the host emits it: the watcher's ids plus their parents, so a page open on a parent hears
 * of a child it does not list yet (another process's delegate). One read for a burst's first PARENT_LOOKUP_MAX
 * ids; a session gone since (deleted) has no parent to name.
 */
function withParents(store: SessionStore, change: { profile: string; sessionIds: string[] }) {
  const parents = new Set<string>()
  try {
    for (const parent of store.parentsOf(change.sessionIds.slice(0, PARENT_LOOKUP_MAX)).values()) parents.add(parent)
  } catch {
    // a locked or damaged moment: the ids still go out
  }
  const evt: EventPayload<'sessions.changed'> = { profile: change.profile, sessionIds: change.sessionIds }
  return parents.size ? { ...evt, parentIds: [...parents] } : evt
}

/** How soon a profile whose state.db was locked when its watch began is tried again. */
const WATCH_RETRY_MS = 1000

/**
 * The store layer of the service graph: one SessionStore + watcher per profile, and a watch on
 * `<root>/profiles` so a profile created by another process appears without a restart.
 */
export function createStoreServices(opts: {
  root: string
  demo: boolean
  headless: boolean
  live: boolean
  log: Logger
  bus: EventBus
  /** The profile whose folder the host was pointed at (resolveRoot), if it was. */
  profile?: string
  /** The better-sqlite3 addon build the host's stores load (the app's Electron-ABI copy). */
  nativeBinding?: string
}): Services {
  const { root, log, bus } = opts
  mkdirSync(root, { recursive: true })
  setDefaultRoot(root)
  const stores = new StoreRegistry(root, {
    writeRetryMs: (e) => writeRetryMs(e.home),
    journalMode: (e) => journalModeSetting(e.home),
    onJournalNotice: (profile, message) => log.warn('store', `profile ${profile}: ${message}`),
    nativeBinding: opts.nativeBinding,
    // the agent's prompt goes without a memory file: said where its sessions are listed, not only on the Memory page
    profileNotices: (e) => memoryFileProblems(e.home),
    onLockedOut: (profile) => lockedOut.add(profile),
    // something this host started outlived close(): its write was refused (a file re-made after close could be in a
    // home the user just moved or deleted); said once, as a bug of ours
    onClosedUse: (message) => log.warn('host', `refused after close: ${message}`)
  })
  // A view of every profile served without a locked one reads it again when the lock goes (lock-watch.ts).
  const lockedOut = new LockedOutWatch(
    (profile) => {
      if (stores.has(profile)) stores.get(profile).sessionCount()
    },
    (profile) => bus.emit('store.lockChanged', { profile, request: 'lockedOut', state: 'cleared', cause: 'locked' })
  )
  const watchers = new Map<string, SessionWatcher>()
  const lockRetries = new Set<NodeJS.Timeout>()
  let closed = false
  const closers: Array<() => void | Promise<void>> = []

  const profilesChanged = () => bus.emit('profiles.changed', { profiles: stores.list().map((e) => e.name) })
  /**
   * One watcher per profile, with or without a state.db: it notices the file appearing (upstream's first use of a
   * `hermes profile create`d profile, or Caduceus's own first write), being replaced (a backup restored over it)
   * or deleted, reopens the store on what is there and names every session; the rail's counts follow through
   * `profiles.changed`. `appeared`: a profile found after start-up, whose sessions the renderer has never seen.
   */
  const watchProfile = (name: string, appeared = false) => {
    if (!opts.live || watchers.has(name)) return
    try {
      const store = stores.get(name)
      // Another process's delegation rows (upstream's async delegations complete by writing only their row): the
      // Subagents lists hear of them as of this host's own.
      const watcher = new SessionWatcher(store, (change) => bus.emit('sessions.changed', withParents(store, change)), {
        announceExisting: appeared,
        onDelegations: (c) => {
          for (const d of c.delegations) bus.emit('delegation.updated', { profile: c.profile, ...d })
        },
        onFile: (change) => {
          if (change === 'deleted')
            log.warn('store', `profile ${name}: ${store.path} was deleted; it reads as empty until it exists again`)
          else if (change === 'replaced') log.info('store', `profile ${name}: ${store.path} was replaced; reopened it`)
          profilesChanged()
        }
      }).start()
      watchers.set(name, watcher)
    } catch (err) {
      // A malformed or locked DB must not stop the other profiles from being served.
      log.error('store', `cannot watch profile ${name}: ${errorMessage(err)}`)
      // Locked by another program at that moment (a rollback-journal home under a foreign write): tried again until it
      // opens, and then said, so the rail and lists read it again. Unwatched, another process's sessions in it were
      // never announced and the rail kept "cannot be read" for as long as the host ran.
      if (isBusy(err) && !closed) {
        const retry = setTimeout(() => {
          lockRetries.delete(retry)
          if (closed || watchers.has(name) || !stores.has(name)) return
          watchProfile(name, true)
          if (watchers.has(name)) profilesChanged()
        }, WATCH_RETRY_MS)
        lockRetries.add(retry)
      }
    }
  }
  // each profile's built-in memory files and cron/jobs.json: another process's memory tool, cron CLI or scheduler
  // rewrites them without an event of ours
  const fileWatches = new Map<string, Array<MemoryFolderWatch | CronJobsWatch>>()
  const watchMemory = () => {
    if (!opts.live) return
    const served = new Map(stores.list().map((e) => [e.name, e.home]))
    for (const [name, home] of served)
      if (!fileWatches.has(name))
        fileWatches.set(name, [
          new MemoryFolderWatch(home, () => bus.emit('memory.changed', { profile: name })).start(),
          new CronJobsWatch(home, () => bus.emit('cron.changed', { profile: name })).start()
        ])
    for (const [name, ws] of fileWatches)
      if (!served.has(name)) {
        for (const w of ws) w.stop()
        fileWatches.delete(name)
      }
  }
  for (const entry of stores.list()) watchProfile(entry.name)
  watchMemory()
  // Serving several profiles from one process is multiplexing (hermes-spec §4.3): memory hooks and secrets
  // then demand an explicit profile scope instead of trusting the process's own home. This host's share only: the
  // process is multiplexed while its hosts serve more than one profile between them (scope/scope.ts).
  const profileClaim = claimProfiles()
  const updateMultiplex = () => profileClaim.count(stores.list().length)
  updateMultiplex()

  let profilesWatch: FSWatcher | null = null
  let rootWatch: FSWatcher | null = null
  let rescanTimer: NodeJS.Timeout | null = null
  if (opts.live) {
    const dir = join(root, 'profiles')
    const rescan = () => {
      if (rescanTimer || closed) return
      rescanTimer = setTimeout(() => {
        rescanTimer = null
        const added = stores.refresh()
        for (const name of added) watchProfile(name, true)
        updateMultiplex()
        watchMemory()
        for (const name of [...watchers.keys()])
          if (!stores.has(name)) {
            watchers.get(name)!.stop()
            watchers.delete(name)
          }
        if (added.length) profilesChanged()
      }, 200)
    }
    const watchProfiles = () => {
      try {
        profilesWatch = watch(dir, rescan)
      } catch (err) {
        log.warn('store', `cannot watch ${dir} for new profiles: ${errorMessage(err)}`)
      }
    }
    if (existsSync(dir)) watchProfiles()
    else {
      // A home with no profiles/ (upstream's single-profile ~/.hermes) is not given one by being served: the root is
      // watched for the folder instead, until `hermes profile create` (or anything) makes it.
      try {
        rootWatch = watch(root, (_event, name) => {
          if (profilesWatch || String(name) !== 'profiles' || !existsSync(dir)) return
          rootWatch?.close()
          rootWatch = null
          watchProfiles()
          rescan() // a profile made with the folder, before its watch began
        })
      } catch (err) {
        log.warn('store', `cannot watch ${root} for a profiles folder: ${errorMessage(err)}`)
      }
    }
  }

  return {
    root,
    demo: opts.demo,
    headless: opts.headless,
    log,
    bus,
    stores,
    homeOf(profile) {
      const entry = stores.list().find((e) => e.name === profile)
      if (!entry) throw new CaduceusError('not_found', `Unknown profile: ${profile}`, 'profile')
      return entry.home
    },
    activeProfile() {
      const named = opts.profile ?? stores.activeProfileName()
      return named && stores.has(named) ? named : 'default'
    },
    onClose: (fn) => void closers.push(fn),
    async close() {
      closed = true
      for (const t of lockRetries) clearTimeout(t)
      if (rescanTimer) clearTimeout(rescanTimer)
      lockedOut.close()
      for (const fn of closers.reverse()) {
        try {
          await fn()
        } catch (err) {
          log.warn('host', `shutdown step failed: ${errorMessage(err)}`)
        }
      }
      profilesWatch?.close()
      rootWatch?.close()
      for (const w of watchers.values()) w.stop()
      for (const ws of fileWatches.values()) for (const w of ws) w.stop()
      stores.closeAll()
      profileClaim.release()
    }
  }
}
