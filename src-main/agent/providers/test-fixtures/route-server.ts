// A real local HTTP server whose every reply is a `route` function (raw bytes, stalls, hostile bodies): the provider
// tests set `route` per case (and read `hits`); the provider bench runs it in its own process with `hostileRoute`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Answers one request; `n` counts the requests since `hits` was last reset. */
export type Route = (req: IncomingMessage, res: ServerResponse, n: number) => void

export interface RouteServer {
  port: number
  /** `http://127.0.0.1:<port>/v1`, for a client's `baseUrl`. */
  baseUrl: string
  route: Route
  hits: number
  /** Every request body received, in order. */
  bodies: string[]
  close(): Promise<void>
}

/** Starts the server; each request body is read to its end before `route` answers. */
export async function startRouteServer(route: Route = () => undefined): Promise<RouteServer> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (b: Buffer) => parts.push(b))
    req.on('end', () => {
      provider.bodies.push(Buffer.concat(parts).toString('utf8'))
      provider.route(req, res, ++provider.hits)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const provider: RouteServer = {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    route,
    hits: 0,
    bodies: [],
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      })
  }
  return provider
}

/** Writes `total` bytes of `fill` in ~64 KB pieces, honouring back-pressure; stops when the client goes away. */
export function pour(res: ServerResponse, head: string, total: number, fill = 'x', tail = ''): void {
  let sent = 0
  const piece = fill.repeat(Math.max(1, Math.floor(65536 / fill.length))) // whole repetitions only
  res.write(head)
  const more = () => {
    while (sent < total && !res.destroyed) {
      sent += piece.length
      if (!res.write(piece)) return void res.once('drain', more)
    }
    if (!res.destroyed) res.end(tail)
  }
  more()
}

/** One OpenAI chat-completion stream event carrying `delta`. */
export const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`

export const sse = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
}

/**
 * The bench's hostile provider: the URL `/<mode>/<MB>/v1/…` picks the reply. `sse-line` is one endless SSE line,
 * `json` one endless JSON body, `tool` endless tool-call arguments; `done` (or header `x-turn: 2`) answers "ok".
 */
export const hostileRoute: Route = (req, res) => {
  const [, mode, size] = (req.url ?? '').split('/')
  const total = Number(size) * (1 << 20)
  if (mode === 'sse-line') {
    sse(res)
    pour(res, 'data: {"choices":[{"delta":{"content":"', total, 'x', '"}}]}\n\n')
  } else if (mode === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' })
    pour(res, '{"choices":[{"message":{"content":"', total, 'x', '"}}]}')
  } else if (req.headers['x-turn'] === '2' || mode === 'done') {
    sse(res)
    res.end(chunk({ content: 'ok' }) + 'data: [DONE]\n\n')
  } else {
    sse(res)
    const head = chunk({
      tool_calls: [{ index: 0, id: 'call_1', function: { name: 'write', arguments: '{"text":"' } }]
    })
    const fill = chunk({ tool_calls: [{ index: 0, function: { arguments: 'y'.repeat(65536) } }] })
    pour(
      res,
      head,
      total,
      fill,
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }) + 'data: [DONE]\n\n'
    )
  }
}
