import { createHash } from 'node:crypto'
import { errorMessage, parseJsonOr } from '@shared/contract/errors'
/**
 * Mem0's two HTTP protocols, as upstream speaks them. `cloud`: the platform API (what the mem0ai SDK's
 * MemoryClient sends: `Authorization: Token`, a `Mem0-User-ID` header that is the MD5 of the key, a
 * `/v1/ping/` check first, `/v3/memories/add|search/` and `/v1/memories/<id>/`). `selfhosted`: a Mem0
 * server of one's own (`X-API-Key`, only when a key is set; `/memories`, `/search`, `/memories/<id>`).
 * Not the `mem0ai` npm SDK: it bundles the in-process engine with its own openai/zod/axios copies for a
 * handful of requests.
 *
 * The key goes to exactly one origin, the one the client was built for: redirects are refused (fetch would
 * carry a custom header such as X-API-Key to wherever a redirect points), and the key never reaches an
 * error text.
 */
export interface Mem0Memory {
  id?: unknown
  memory?: unknown
  score?: unknown
}

export type Mem0Protocol = 'cloud' | 'selfhosted'

export interface Mem0ClientOptions {
  protocol: Mem0Protocol
  baseUrl: string
  apiKey: string
  timeoutMs?: number
  fetch?: typeof fetch
}

export interface Mem0AddOptions {
  userId: string
  agentId: string
  infer: boolean
  metadata?: Record<string, unknown>
}

export class Mem0Error extends Error {
  constructor(
    message: string,
    readonly status: number | null
  ) {
    super(message)
    this.name = 'Mem0Error'
  }
}

export class Mem0Client {
  private readonly base: string
  private readonly cloud: boolean
  constructor(private readonly opts: Mem0ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '')
    this.cloud = opts.protocol === 'cloud'
  }

  /** The platform checks a key before anything else (the SDK does it when the client is made). */
  async validate(): Promise<void> {
    if (this.cloud) await this.request('GET', '/v1/ping/')
  }

  async add(messages: Array<{ role: string; content: string }>, o: Mem0AddOptions): Promise<unknown> {
    const body: Record<string, unknown> = { messages, user_id: o.userId, agent_id: o.agentId, infer: o.infer }
    if (o.metadata && Object.keys(o.metadata).length) body.metadata = o.metadata
    return this.request('POST', this.cloud ? '/v3/memories/add/' : '/memories', body)
  }

  async search(query: string, filters: Record<string, unknown>, topK: number, rerank: boolean): Promise<Mem0Memory[]> {
    const body = this.cloud
      ? { query: query.trim(), filters, top_k: topK, rerank }
      : // The self-hosted /search has no rerank.
        { query, top_k: topK, filters }
    if (this.cloud && !body.query) throw new Mem0Error('Invalid query: cannot be empty or whitespace-only.', null)
    return unwrap(await this.request('POST', this.cloud ? '/v3/memories/search/' : '/search', body))
  }

  async update(memoryId: string, text: string): Promise<void> {
    await this.request('PUT', this.memoryPath(memoryId), { text })
  }

  async delete(memoryId: string): Promise<void> {
    await this.request('DELETE', this.memoryPath(memoryId))
  }

  private memoryPath(id: string): string {
    const seg = encodeURIComponent(id)
    return this.cloud ? `/v1/memories/${seg}/` : `/memories/${seg}`
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' }
    if (this.cloud) {
      h.Authorization = `Token ${this.opts.apiKey}`
      h['Mem0-User-ID'] = createHash('md5').update(this.opts.apiKey).digest('hex')
    } else if (this.opts.apiKey) h['X-API-Key'] = this.opts.apiKey
    return h
  }

  private async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const doFetch = this.opts.fetch ?? fetch
    const where = `${method} ${path}`
    let res: Response
    try {
      res = await doFetch(`${this.base}${path}`, {
        method,
        headers: this.headers(),
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000)
      })
    } catch (err) {
      throw new Mem0Error(this.scrub(`mem0 ${where} failed: ${errorMessage(err)}`), null)
    }
    const text = await res.text()
    if (!res.ok) {
      let detail = text.slice(0, 200)
      const j = parseJsonOr(text, null) as { detail?: unknown } | null // not JSON: the text itself
      if (typeof j?.detail === 'string') detail = j.detail
      throw new Mem0Error(this.scrub(`mem0 ${where} returned HTTP ${res.status}: ${detail}`), res.status)
    }
    const parsed = text ? parseJsonOr(text, undefined) : {}
    if (parsed === undefined) throw new Mem0Error(`mem0 ${where} returned a non-JSON body`, res.status)
    return parsed
  }

  private scrub(s: string): string {
    return this.opts.apiKey ? s.replaceAll(this.opts.apiKey, '***') : s
  }
}

/** Either a bare list or `{results: [...]}`, as upstream's backends accept. */
function unwrap(body: unknown): Mem0Memory[] {
  const list = Array.isArray(body)
    ? body
    : isObj(body) && Array.isArray(body.results)
      ? (body.results as unknown[])
      : []
  return list.filter(isObj) as Mem0Memory[]
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
