/**
 * A local fake Mem0 server answering either protocol: the platform API (`platform`: Token auth, /v1/ping/,
 * /v3/memories/add|search/, /v1/memories/<id>/) or a self-hosted server (`selfhosted`: X-API-Key, /memories,
 * /search, /memories/<id>). It behaves exactly as the fake in scripts/golden/mem0_requests.py (which records
 * upstream against it): keep the two in step.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeMem0Call {
  method: string
  path: string
  query: string
  /** Which auth headers came (lower-case names), never their values. */
  headers: string[]
  auth_ok: boolean
  body: any
  mem0_user_id_is_md5_of_key?: boolean
  /** The raw Authorization header (for tests that check the key went where it should). */
  auth: string | undefined
  xApiKey: string | undefined
}

export interface FakeMem0 {
  baseUrl: string
  memories: Array<{ id: string; memory: string; user_id: string }>
  calls: FakeMem0Call[]
  close(): Promise<void>
}

export async function startFakeMem0(apiKey: string, mode: 'platform' | 'selfhosted' = 'platform'): Promise<FakeMem0> {
  const memories: FakeMem0['memories'] = []
  const calls: FakeMem0Call[] = []
  let adds = 0
  const cloud = mode === 'platform'
  const handle = (method: string, path: string, body: any): [number, unknown] => {
    if (cloud && method === 'GET' && path === '/v1/ping/')
      return [200, { status: 'ok', org_id: 'org-1', project_id: 'proj-1', user_email: null }]
    if (method === 'POST' && path === (cloud ? '/v3/memories/add/' : '/memories')) {
      adds += 1
      const added: unknown[] = []
      for (const m of (body?.messages ?? []) as Array<{ role?: string; content?: string }>) {
        if (m.role === 'user' && (m.content ?? '').trim()) {
          const mem = { id: `mem-${memories.length + 1}`, memory: m.content!, user_id: body.user_id }
          memories.push(mem)
          added.push({ id: mem.id, memory: mem.memory, event: 'ADD' })
        }
      }
      return [200, { results: added, event_id: `evt-${adds}` }]
    }
    if (method === 'POST' && path === (cloud ? '/v3/memories/search/' : '/search')) {
      const user = body?.filters?.user_id
      const words = String(body?.query ?? '')
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length >= 3)
      const hits = memories
        .filter((m) => m.user_id === user && words.some((w) => m.memory.toLowerCase().includes(w)))
        .map((m) => ({ id: m.id, memory: m.memory, user_id: m.user_id, score: 0.5 }))
      return [200, { results: hits.slice(0, Number(body?.top_k) || 10) }]
    }
    const m = (cloud ? /^\/v1\/memories\/([^/]+)\/$/ : /^\/memories\/([^/]+)$/).exec(path)
    if (m && (method === 'PUT' || method === 'DELETE')) {
      const found = memories.find((x) => x.id === decodeURIComponent(m[1]!))
      if (!found) return [404, { detail: 'Memory not found' }]
      if (method === 'PUT') {
        found.memory = body?.text
        return [200, { message: 'Memory updated successfully!' }]
      }
      memories.splice(memories.indexOf(found), 1)
      return [200, { message: 'Memory deleted successfully!' }]
    }
    return [404, { detail: 'Not found' }]
  }
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null
      const url = new URL(req.url ?? '/', 'http://x')
      const h = {
        authorization: req.headers.authorization,
        'x-api-key': req.headers['x-api-key'] as string | undefined,
        'mem0-user-id': req.headers['mem0-user-id'] as string | undefined
      }
      // An empty key: a self-hosted server running without auth (AUTH_DISABLED).
      const ok = cloud ? h.authorization === `Token ${apiKey}` : h['x-api-key'] === (apiKey || undefined)
      const call: FakeMem0Call = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.search.replace(/^\?/, ''),
        headers: Object.entries(h)
          .filter(([, v]) => v)
          .map(([k]) => k)
          .sort(),
        auth_ok: ok,
        body,
        auth: h.authorization,
        xApiKey: h['x-api-key']
      }
      if (h['mem0-user-id'] !== undefined)
        call.mem0_user_id_is_md5_of_key = h['mem0-user-id'] === createHash('md5').update(apiKey).digest('hex')
      calls.push(call)
      const [status, out] = ok ? handle(call.method, call.path, body) : [401, { detail: 'Invalid API key' }]
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(out))
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
