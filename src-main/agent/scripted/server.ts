/**
 * A real HTTP server speaking the OpenAI-compatible protocol (and Anthropic's `/v1/messages`), for
 * tests and `--demo`. Replies come from a queue (`script`) or a `handler`; every request body is
 * recorded. Binds 127.0.0.1 on an ephemeral port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeAnthropicStream } from './anthropic-wire'
import { writeOpenAIJson, writeOpenAIStream } from './openai-wire'
import type { RecordedRequest, ScriptHandler, ScriptReply } from './script'
import { errorMessage } from '@shared/contract/errors'
import { parseJsonOr } from '@shared/contract/errors'

export interface ScriptedProviderOptions {
  script?: ScriptReply[]
  handler?: ScriptHandler
  /** Model ids listed by `GET /v1/models`. */
  models?: string[]
  port?: number
  /** The exact Authorization header a completion request must carry (a gateway behind basic auth); else 401. */
  requireAuthorization?: string
}

export interface ScriptedProvider {
  /** OpenAI-style base URL ending in `/v1` (the Anthropic client strips it). */
  baseUrl: string
  requests: RecordedRequest[]
  /** Append more replies to the queue. */
  push(...replies: ScriptReply[]): void
  close(): Promise<void>
}

const MAX_BODY = 20 * 1024 * 1024

export async function startScriptedProvider(opts: ScriptedProviderOptions = {}): Promise<ScriptedProvider> {
  const queue = [...(opts.script ?? [])]
  const requests: RecordedRequest[] = []
  const nextReply: ScriptHandler = (req) => {
    const queued = queue.shift()
    if (queued) return queued
    if (opts.handler) return opts.handler(req)
    return { error: 500, errorMessage: 'scripted provider: no reply queued for this request' }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted provider failed: ${errorMessage(err)}`)
      else res.destroy()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '')
    const raw = await readBody(req)
    const body: any = raw ? parseJsonOr(raw, null) : null
    const auth = req.headers.authorization ?? req.headers['x-api-key']
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      body,
      apiKeyPresent: Boolean(auth && !/no-key$/.test(String(auth)))
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          data: (opts.models ?? ['demo-model']).map((id) => ({ id, object: 'model', owned_by: 'scripted' }))
        })
      )
      return
    }
    const isChat = req.method === 'POST' && path.endsWith('/chat/completions')
    const isMessages = req.method === 'POST' && path.endsWith('/messages')
    if (!isChat && !isMessages) return sendError(res, 404, `no route ${req.method} ${path}`)
    requests.push(recorded)
    if (opts.requireAuthorization !== undefined && req.headers.authorization !== opts.requireAuthorization)
      return sendError(res, 401, 'authorization required', isMessages)
    if (!body || typeof body !== 'object') return sendError(res, 400, 'request body must be JSON')
    const reply = await nextReply(recorded)
    if (reply.delayMs) await delay(reply.delayMs, res)
    if (res.destroyed || res.writableEnded) return
    if (reply.error)
      return sendError(res, reply.error, reply.errorMessage ?? `scripted error ${reply.error}`, isMessages)
    if (reply.malformed === 'garbage') {
      res.writeHead(200, { 'content-type': isMessages || body.stream ? 'text/event-stream' : 'application/json' })
      res.end('this is not a provider reply <html>')
      return
    }
    if (isMessages) return writeAnthropicStream(res, reply, body)
    if (body.stream) return writeOpenAIStream(res, reply, body)
    return writeOpenAIJson(res, reply, body)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...replies) => {
      queue.push(...replies)
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Stalled streams would keep close() waiting forever.
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

function sendError(res: ServerResponse, status: number, message: string, anthropic = false): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify(
      anthropic
        ? { type: 'error', error: { type: 'api_error', message } }
        : { error: { message, type: 'scripted_error', code: status } }
    )
  )
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) {
        reject(new Error('request body too large'))
        req.destroy()
      } else chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

// Resolves early when the client disconnects, so an aborted request doesn't hold the timer.
function delay(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms)
    res.once('close', done)
    function done() {
      clearTimeout(t)
      resolve()
    }
  })
}
