/** A local fake of the Mem0 platform endpoints the provider uses, with token auth and naive search. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeMem0 {
  baseUrl: string
  memories: Array<{ id: string; memory: string; user_id: string }>
  calls: Array<{ method: string; path: string; body: any; auth: string | undefined }>
  close(): Promise<void>
}

export async function startFakeMem0(apiKey: string): Promise<FakeMem0> {
  const memories: FakeMem0['memories'] = []
  const calls: FakeMem0['calls'] = []
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null
      const url = new URL(req.url ?? '/', 'http://x')
      calls.push({ method: req.method ?? '', path: url.pathname, body, auth: req.headers.authorization })
      const send = (status: number, out: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(out))
      }
      if (req.headers.authorization !== `Token ${apiKey}`) return send(401, { detail: 'Invalid API key' })
      if (req.method === 'POST' && url.pathname === '/v1/memories/') {
        const added = (body.messages as Array<{ role: string; content: string }>)
          .filter((m) => m.role === 'user' && m.content.trim())
          .map((m) => ({ id: `m${memories.length + 1}`, memory: m.content, user_id: body.user_id }))
        memories.push(...added)
        return send(
          200,
          added.map((m) => ({ id: m.id, event: 'ADD', data: { memory: m.memory } }))
        )
      }
      if (req.method === 'POST' && url.pathname === '/v1/memories/search/') {
        const words = String(body.query)
          .toLowerCase()
          .split(/\W+/)
          .filter((w) => w.length > 3)
        const hits = memories.filter(
          (m) => m.user_id === body.user_id && words.some((w) => m.memory.toLowerCase().includes(w))
        )
        return send(
          200,
          hits.slice(0, body.limit ?? 10).map((m) => ({ ...m, score: 0.9 }))
        )
      }
      if (req.method === 'GET' && url.pathname === '/v1/memories/')
        return send(
          200,
          memories.filter((m) => m.user_id === url.searchParams.get('user_id'))
        )
      send(404, { detail: 'not found' })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    memories,
    calls,
    close: () => new Promise((r) => server.close(() => r()))
  }
}
