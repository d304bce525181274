import { errorMessage } from '@shared/contract/errors'
/**
 * A small client for the Mem0 platform REST API (the endpoints the provider needs). Not the `mem0ai`
 * SDK: that package also bundles the self-hosted engine with its own openai@4 / zod@3 / axios copies,
 * for three HTTP calls. The key travels only in the Authorization header and never into an error text.
 */
export interface Mem0Memory {
  id: string
  memory: string
  score?: number
}

export interface Mem0ClientOptions {
  baseUrl: string
  apiKey: string
  timeoutMs?: number
  fetch?: typeof fetch
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
  constructor(private readonly opts: Mem0ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '')
  }

  async add(
    messages: Array<{ role: string; content: string }>,
    ids: { userId: string; agentId?: string },
    metadata?: Record<string, unknown>
  ): Promise<void> {
    await this.request('POST', '/v1/memories/', {
      messages,
      user_id: ids.userId,
      ...(ids.agentId ? { agent_id: ids.agentId } : {}),
      ...(metadata ? { metadata } : {})
    })
  }

  async search(query: string, ids: { userId: string }, limit: number): Promise<Mem0Memory[]> {
    const out = await this.request('POST', '/v1/memories/search/', { query, user_id: ids.userId, limit })
    return toMemories(out).slice(0, limit)
  }

  async list(ids: { userId: string }): Promise<Mem0Memory[]> {
    return toMemories(await this.request('GET', `/v1/memories/?user_id=${encodeURIComponent(ids.userId)}`))
  }

  private async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const doFetch = this.opts.fetch ?? fetch
    let res: Response
    try {
      res = await doFetch(`${this.base}${path}`, {
        method,
        headers: {
          Authorization: `Token ${this.opts.apiKey}`,
          'Content-Type': 'application/json',
          Accept: 'application/json'
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000)
      })
    } catch (err) {
      throw new Mem0Error(`mem0 ${method} ${path.split('?')[0]} failed: ${errorMessage(err)}`, null)
    }
    const text = await res.text()
    if (!res.ok)
      throw new Mem0Error(
        `mem0 ${method} ${path.split('?')[0]} returned HTTP ${res.status}: ${text.slice(0, 200).replaceAll(this.opts.apiKey, '***')}`,
        res.status
      )
    try {
      return text ? JSON.parse(text) : null
    } catch {
      throw new Mem0Error(`mem0 ${method} ${path.split('?')[0]} returned a non-JSON body`, res.status)
    }
  }
}

/** The API answers either a bare list or `{results: [...]}` depending on version. */
function toMemories(body: unknown): Mem0Memory[] {
  const list = Array.isArray(body)
    ? body
    : Array.isArray((body as { results?: unknown })?.results)
      ? (body as { results: unknown[] }).results
      : []
  return list.flatMap((m) => {
    const r = m as { id?: unknown; memory?: unknown; score?: unknown }
    return typeof r?.memory === 'string'
      ? [{ id: String(r.id ?? ''), memory: r.memory, ...(typeof r.score === 'number' ? { score: r.score } : {}) }]
      : []
  })
}
