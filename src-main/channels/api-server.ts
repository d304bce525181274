/**
 * The OpenAI-compatible API server (hermes-channels §1) for one profile. Every turn it runs is bound
 * through the gateway's API-server channel (`bindApiServerSession`: no async delivery, seed 003) and
 * stored with `source = 'api_server'`. Bearer auth on every /v1 route; /health is open.
 */
import type { LogFn } from '@shared/contract/log'
import { timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { RunLimiter, TurnLedger } from './channel-turn'
import { chatCompletions } from './chat-completions'
import type { ConversationSessions } from './conversation'
import { httpErrorOf, type ApiContext, type ChannelGateway } from './context'
import {
  guardHost,
  guardJsonBody,
  guardErrorBody,
  guardOrigin,
  HttpError,
  MAX_BODY_BYTES,
  presetHeaders,
  SECURITY_HEADERS,
  sendError,
  sendJson
} from './http'
import { createResponse, deleteResponse, getResponse } from './responses'
import { ResponseStore } from './response-store'
import { RunRegistry, runEvents, statusOf, stopRun, submitRun } from './runs'
import { isLoopbackHost, resolveApiServerSettings } from './settings'
import type { SecretVault } from '../secrets'

export interface ApiServerOptions {
  gateway: ChannelGateway
  profile: string
  /** The profile's home: its `.env` holds API_SERVER_* (and receives a generated key). */
  home: string
  /** The host's vault: API_SERVER_* are read from the profile's secrets, as every other key is. */
  vault: SecretVault
  /** The profile's stored conversations: without it every request without a session header stands alone. */
  sessions?: ConversationSessions
  host?: string
  port?: number
  /** The app's version, reported by /health as upstream reports its own. */
  version?: string
  log?: LogFn
  /**
   * The host's shared request guards (host/request-guards): a never-throwing path decoder and the server-level
   * guard (malformed request lines, timeouts). Passed in because channels/ sits below host/.
   */
  guards?: {
    decodePath?(
      raw: string | undefined
    ): { ok: true; pathname: string } | { ok: false; status: number; message: string }
    /** `errorBody`: the server's own error shape, for what the guard answers before a request reaches a route. */
    server?(server: Server, errorBody: (status: number, code: string, message: string) => unknown): unknown
  }
}

export interface ApiServerStats {
  requests: number
  startedAt: number
}

export interface ApiServer {
  url: string
  host: string
  port: number
  profile: string
  modelName: string
  /** Set when this start generated the key into `.env` (print it once); null otherwise. */
  generatedKey: string | null
  keySet: boolean
  stats(): ApiServerStats
  close(): Promise<void>
}

function keyMatches(expected: string, header: string | undefined): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice(7).trim() : ''
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return given.length > 0 && a.length === b.length && timingSafeEqual(a, b)
}

/** Resolves settings (refusing a keyless non-loopback bind before any socket opens), then listens. */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const settings = resolveApiServerSettings(opts.home, opts.vault, { host: opts.host, port: opts.port })
  const ctx: ApiContext = {
    gateway: opts.gateway,
    profile: opts.profile,
    modelName: settings.modelName,
    sessions: opts.sessions,
    turns: new TurnLedger(),
    limiter: new RunLimiter(settings.maxConcurrentRuns),
    routes: settings.modelRoutes
  }
  for (const note of settings.notes) opts.log?.('warn', `api server: ${note}`)
  const responses = new ResponseStore(join(opts.home, 'caduceus', 'api-responses'))
  const runs = new RunRegistry()
  const stats: ApiServerStats = { requests: 0, startedAt: Date.now() }
  const version = opts.version ?? '0.0.0'
  const loopback = isLoopbackHost(settings.host)
  let port = settings.port

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    guardHost(req, loopback, port)
    const cors = guardOrigin(req, settings.corsOrigins)
    // An allowed origin's CORS headers go on every answer, errors included, so a browser can read a 401 or 400.
    presetHeaders(res, cors)
    const target = opts.guards?.decodePath?.(req.url)
    if (target && !target.ok) throw new HttpError(target.status, target.message)
    const path =
      // Trailing slashes trimmed from the first of their run only: `/\/+$/` rescanned every run of slashes from each
      // slash in it, before the key check (an 8 KB path of slashes: 25 ms of the host's thread per request).
      (target?.ok ? target.pathname : new URL(req.url ?? '/', 'http://x').pathname).replace(/(?<!\/)\/+$/, '') || '/'
    const method = req.method ?? 'GET'
    // A preflight from an allowed origin (guardOrigin refused the others): 200 with the CORS headers, as upstream. One
    // without an Origin is no browser's: refused, as upstream refuses it.
    if (method === 'OPTIONS') {
      if (!cors['access-control-allow-origin'])
        throw new HttpError(403, 'a preflight needs an allowed Origin', 'permission_error', 'origin_not_allowed')
      return void res.writeHead(200, cors).end()
    }
    if (path === '/health' || path === '/v1/health') {
      allowOnly(method, ['GET', 'HEAD'])
      return sendJson(res, 200, { status: 'ok', platform: 'hermes-agent', version, profile: opts.profile }, cors)
    }
    if (!keyMatches(settings.key, req.headers.authorization))
      throw new HttpError(401, 'Invalid API key', 'invalid_request_error', 'invalid_api_key')
    stats.requests++
    const handlers = routeOf(path)
    if (!handlers) throw new HttpError(404, `Unknown route ${method} ${path}`, 'invalid_request_error', 'not_found')
    // HEAD is answered wherever GET is (headers only; node drops the body), as upstream's aiohttp routes do.
    const as = method === 'HEAD' && handlers.methods.GET ? 'GET' : method
    allowOnly(as, Object.keys(handlers.methods))
    return handlers.methods[as]!(handlers.id, req, res, cors)
  }

  type Handler = (
    id: string,
    req: IncomingMessage,
    res: ServerResponse,
    cors: Record<string, string>
  ) => void | Promise<void>
  /** The /v1 routes: a path (with the id it names, if any) and what each method does there. */
  const routeOf = (path: string): { id: string; methods: Record<string, Handler> } | null => {
    const fixed: Record<string, Record<string, Handler>> = {
      '/v1/models': {
        GET: (_id, _req, res, cors) =>
          sendJson(
            res,
            200,
            { object: 'list', data: modelCards(settings.modelName, ctx.routes, stats.startedAt) },
            cors
          )
      },
      '/v1/capabilities': { GET: (_id, _req, res, cors) => sendJson(res, 200, capabilities(settings.modelName), cors) },
      '/v1/chat/completions': {
        POST: async (_id, req, res, cors) => chatCompletions(ctx, req, res, await guardJsonBody(req), cors)
      },
      '/v1/responses': {
        POST: async (_id, req, res, cors) => createResponse(ctx, responses, req, res, await guardJsonBody(req), cors)
      },
      '/v1/runs': {
        POST: async (_id, req, res, cors) =>
          submitRun(ctx, runs, req, res, await guardJsonBody(req, MAX_BODY_BYTES, 'Invalid JSON'), cors, (id) =>
            responses.get(id)
          )
      }
    }
    if (fixed[path]) return { id: '', methods: fixed[path] }
    // One model by id (the SDKs' `models.retrieve`); an alias may hold a slash (`openai/gpt-4o`).
    const model = /^\/v1\/models\/(.+)$/.exec(path)
    if (model)
      return {
        id: decode(model[1]!),
        methods: {
          GET: (id, _req, res, cors) => {
            const card = modelCards(settings.modelName, ctx.routes, stats.startedAt).find((m) => m.id === id)
            if (!card)
              throw new HttpError(
                404,
                `The model '${id}' does not exist`,
                'invalid_request_error',
                'model_not_found',
                {},
                { param: 'model' }
              )
            sendJson(res, 200, card, cors)
          }
        }
      }
    const resp = /^\/v1\/responses\/([^/]+)$/.exec(path)
    if (resp)
      return {
        id: decode(resp[1]!),
        methods: {
          GET: (id, _req, res, cors) => getResponse(responses, id, res, cors),
          DELETE: (id, _req, res, cors) => deleteResponse(responses, id, res, cors)
        }
      }
    const run = /^\/v1\/runs\/([^/]+)(\/events|\/stop)?$/.exec(path)
    if (!run) return null
    const methods: Record<string, Handler> =
      run[2] === '/events'
        ? { GET: (id, _req, res, cors) => runEvents(runs, id, res, cors) }
        : run[2] === '/stop'
          ? { POST: (id, _req, res, cors) => stopRun(ctx, runs, id, res, cors) }
          : { GET: (id, _req, res, cors) => sendJson(res, 200, statusOf(runs.get(id)), cors) }
    return { id: decode(run[1]!), methods }
  }

  const server: Server = createServer((req, res) => {
    presetHeaders(res, SECURITY_HEADERS)
    route(req, res).catch((err: unknown) => {
      const e = httpErrorOf(err)
      if (e.status >= 500) opts.log?.('warn', `api server: ${req.method} ${req.url}: ${e.message}`)
      if (res.headersSent) return void res.end()
      sendError(res, e)
    })
  })
  // a 413 before 100 Continue or a request line Node refuses: answered in OpenAI's error shape, as every route is
  opts.guards?.server?.(server, guardErrorBody)
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject)
      resolveListen()
    })
  })
  port = (server.address() as AddressInfo).port
  const hostForUrl =
    settings.host.includes(':') && !settings.host.startsWith('[') ? `[${settings.host}]` : settings.host
  opts.log?.('info', `api server for ${opts.profile} on ${hostForUrl}:${port}`)
  return {
    url: `http://${hostForUrl}:${port}`,
    host: settings.host,
    port,
    profile: opts.profile,
    modelName: settings.modelName,
    generatedKey: settings.keyGenerated ? settings.key : null,
    keySet: true,
    stats: () => ({ ...stats }),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done())
        server.closeAllConnections()
      })
  }
}

/** A known path asked with another method: 405 naming the ones it answers (upstream's status and Allow header). */
function allowOnly(method: string, allowed: string[]): void {
  if (!allowed.includes(method))
    throw new HttpError(405, `Method ${method} not allowed`, 'invalid_request_error', 'method_not_allowed', {
      allow: allowed.join(', ')
    })
}

function decode(segment: string): string {
  if (!segment.includes('%')) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    // URIError: a malformed escape
    throw new HttpError(400, 'malformed id in the path')
  }
}

/** The server's own model name, then each `model_routes` alias (root: the model it runs; never a key). */
function modelCards(id: string, routes: ApiContext['routes'], startedAt: number) {
  const created = Math.floor(startedAt / 1000)
  const card = (name: string, root: string, parent: string | null) => ({
    id: name,
    object: 'model',
    created,
    owned_by: 'hermes',
    permission: [],
    root,
    parent
  })
  return [
    card(id, id, null),
    ...Object.entries(routes)
      .filter(([alias]) => alias !== id)
      .map(([alias, r]) => card(alias, r.model, id))
  ]
}

/**
 * What this server offers, in upstream's capability shape (clients feature-detect on it): every feature upstream names
 * is listed, true only where Caduceus serves it; endpoints are `{method, path}`, only the ones served here.
 */
function capabilities(model: string) {
  const at = (method: string, path: string) => ({ method, path })
  return {
    object: 'hermes.api_server.capabilities',
    platform: 'hermes-agent',
    model,
    auth: { type: 'bearer', required: true },
    runtime: {
      mode: 'server_agent',
      tool_execution: 'server',
      split_runtime: false,
      description: "Turns run in this profile's agent inside Caduceus; its tools run on this machine."
    },
    features: {
      chat_completions: true,
      chat_completions_streaming: true,
      responses_api: true,
      responses_streaming: true,
      run_submission: true,
      run_status: true,
      run_events_sse: true,
      run_stop: true,
      run_approval_response: false,
      tool_progress_events: true,
      approval_events: false,
      session_resources: false,
      session_chat: false,
      session_chat_streaming: false,
      session_fork: false,
      admin_config_rw: false,
      jobs_admin: false,
      memory_write_api: false,
      skills_api: false,
      audio_api: false,
      realtime_voice: false,
      session_continuity_header: 'X-Hermes-Session-Id',
      session_key_header: 'X-Hermes-Session-Key',
      cors: true,
      async_delivery: false
    },
    endpoints: {
      health: at('GET', '/health'),
      models: at('GET', '/v1/models'),
      chat_completions: at('POST', '/v1/chat/completions'),
      responses: at('POST', '/v1/responses'),
      runs: at('POST', '/v1/runs'),
      run_status: at('GET', '/v1/runs/{run_id}'),
      run_events: at('GET', '/v1/runs/{run_id}/events'),
      run_stop: at('POST', '/v1/runs/{run_id}/stop')
    }
  }
}
