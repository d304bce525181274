/**
 * The app's channels besides desk chat: the OpenAI-compatible API server the Gateway page can switch on,
 * and the cron scheduler that runs every profile's due jobs while the host is live (standing down for a
 * profile whose upstream gateway heartbeats). Both run turns on the same gateway as desk chat.
 */
import type { ChannelsStatus } from '@shared/contract'
import { startApiServer, type ApiServer } from '../../channels'
import { CronScheduler, readJobs, runCronJob } from '../../cron'
import { API_SERVER, CRON, DESK_CHAT } from '../../gateway'
import { namedLog, type Logger } from '@shared/contract/log'
import { describeListenError, guardServer, safeDecodePath } from '../transport'
import { envPath, secretsFor, updateEnvFile } from '../../secrets'
import { apiConversations } from './api-conversations'
import type { Runtime, Services } from '../services'

/** How long closing the host waits for cron runs under way to record how they ended, once their turns stopped. */
const CRON_CLOSE_MS = 10_000

// The API server's body limit (channels/http.ts MAX_BODY_BYTES): a declared larger body gets 413 before 100 Continue.
const API_BODY_LIMIT = 10_000_000

/** The host's shared request guards, handed to the API server (channels/ cannot import host/). */
export const apiServerGuards = (log: Logger) => ({
  decodePath: safeDecodePath,
  server: (srv: import('node:http').Server, errorBody: NonNullable<Parameters<typeof guardServer>[2]>['errorBody']) =>
    guardServer(srv, log, { bodyLimit: API_BODY_LIMIT, errorBody })
})

export interface ChannelsService {
  status(): ChannelsStatus
  setApiServer(input: { enabled: boolean; profile: string; port?: number }): Promise<ChannelsStatus>
  runJobNow: (profile: string, id: string) => ReturnType<typeof runCronJob>
}

export function createChannelsService(
  s: Services,
  rt: Runtime,
  /** `version`: the app's, which the API server's /health reports. */
  opts: { live: boolean; version?: string }
): ChannelsService {
  let api: ApiServer | null = null
  let apiError: string | null = null
  const profiles = () => s.stores.list().map((e) => ({ name: e.name, home: e.home }))
  const scheduler = new CronScheduler({
    profiles,
    run: (p, job) => runCronJob(rt.gateway, p.name, p.home, job, { vault: rt.vault }),
    upstreamLive: (p) => {
      try {
        return s.stores.get(p.name).upstreamGateway(Date.now() / 1000, p.name) !== null
      } catch {
        return false // no heartbeat can be read: as when no upstream gateway runs
      }
    },
    log: namedLog(s.log, 'cron')
  })
  if (opts.live) scheduler.start()
  // A run under way ends with its turn and then writes how it ended (output file, jobs.json): its turn is stopped
  // here, ahead of the gateway's own shutdown closer (a second call there finds nothing left), and the run awaited,
  // so nothing writes into the home after the host said it closed.
  s.onClose(async () => {
    scheduler.stop()
    await rt.gateway.shutdown()
    if (!(await scheduler.close(CRON_CLOSE_MS)))
      s.log.warn('cron', `a cron run was still under way ${CRON_CLOSE_MS} ms after the host began closing`)
  })
  s.onClose(async () => {
    await api?.close()
    api = null
  })

  const jobCounts = () => {
    let due = 0
    let total = 0
    const now = Date.now()
    for (const p of profiles()) {
      try {
        for (const j of readJobs(p.home).jobs) {
          total++
          if (
            j.enabled !== false &&
            j.state === 'scheduled' &&
            typeof j.next_run_at === 'string' &&
            Date.parse(j.next_run_at) <= now
          )
            due++
        }
      } catch {
        /* an unreadable jobs.json shows on the Cron page, not here */
      }
    }
    return { due, total }
  }

  // The toggle is upstream's API_SERVER_ENABLED in the profile's .env: it survives a restart, per profile.
  const enabledIn = (home: string) =>
    /^(1|true|yes|on)$/i.test((secretsFor(home, rt.vault).API_SERVER_ENABLED ?? '').trim())
  const keyIn = (profile: string) => {
    try {
      return Boolean(
        (process.env.API_SERVER_KEY ?? secretsFor(s.homeOf(profile), rt.vault).API_SERVER_KEY ?? '').trim()
      )
    } catch {
      return false // secrets that cannot be read hold no key: the page shows the key as missing
    }
  }
  let lastProfile: string | null = null

  const status = (): ChannelsStatus => {
    const cron = scheduler.status()
    const counts = jobCounts()
    return {
      deskChat: { platform: DESK_CHAT.platform, asyncDelivery: DESK_CHAT.supportsAsyncDelivery },
      apiServer: {
        platform: API_SERVER.platform,
        asyncDelivery: API_SERVER.supportsAsyncDelivery,
        running: api !== null,
        url: api ? `${api.url}/v1` : null,
        profile: api?.profile ?? null,
        // What the key files say, running or not (a stopped server with a key in .env is not "no key").
        keySet: api ? api.keySet : keyIn(lastProfile ?? profiles()[0]?.name ?? 'default'),
        requests: api?.stats().requests ?? 0,
        error: apiError
      },
      cron: {
        platform: CRON.platform,
        asyncDelivery: CRON.supportsAsyncDelivery,
        enabled: cron.enabled,
        standingDown: cron.standingDown,
        jobsDue: counts.due,
        jobsTotal: counts.total,
        running: cron.running,
        lastTickAt: cron.lastTickAt
      }
    }
  }

  // A live app brings back the API server the Gateway page left on (API_SERVER_ENABLED in that profile's .env).
  if (opts.live) {
    const on = profiles().find((p) => {
      try {
        return enabledIn(p.home)
      } catch {
        return false // a config that cannot be read switches nothing on; the Gateway page reports it
      }
    })
    if (on) void setApiServer({ enabled: true, profile: on.name }, false)
  }

  return {
    status,
    setApiServer: (input) => setApiServer(input, true),
    runJobNow: (profile, id) => {
      const home = s.homeOf(profile)
      // The job as Run now claimed it (not found: refused there).
      return scheduler.runNow(home, id, (job) => runCronJob(rt.gateway, profile, home, job, { vault: rt.vault }))
    }
  }

  async function setApiServer(
    { enabled, profile, port }: { enabled: boolean; profile: string; port?: number },
    persist: boolean
  ): Promise<ChannelsStatus> {
    {
      // Another profile's server is switched off (one in-app server at a time), and so is its saved toggle.
      const previous = api?.profile ?? null
      await api?.close()
      api = null
      apiError = null
      lastProfile = profile
      if (persist) {
        if (previous && previous !== profile) updateEnvFile(envPath(s.homeOf(previous)), 'API_SERVER_ENABLED', 'false')
        updateEnvFile(envPath(s.homeOf(profile)), 'API_SERVER_ENABLED', enabled ? 'true' : 'false')
      }
      if (enabled) {
        try {
          api = await startApiServer({
            gateway: rt.gateway,
            profile,
            home: s.homeOf(profile),
            vault: rt.vault,
            port,
            version: opts.version,
            log: namedLog(s.log, 'api_server'),
            guards: apiServerGuards(s.log),
            sessions: apiConversations(s.stores, profile)
          })
        } catch (err) {
          apiError = describeListenError(err, port)
        }
      }
      return status()
    }
  }
}
