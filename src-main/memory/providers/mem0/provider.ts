/**
 * `mem0`: Mem0 long-term memory, configured as upstream configures it (`<home>/mem0.json` from `hermes memory
 * setup`, `MEM0_*` fallbacks; settings.ts) and speaking what upstream speaks: the platform API, or a self-hosted
 * Mem0 server when a host is set (client.ts). Same four tools, same arguments and the same JSON answers, so a
 * model, a memory store and a home move between the two programs unchanged.
 */
import { pyIntError, pyIntValue, pyJson } from '@shared/contract/py-text'
import { errorMessage } from '@shared/contract/errors'
import {
  MemoryProvider,
  type InitializeOptions,
  type MemoryToolSchema,
  type PrefetchOptions,
  type TurnStartOptions
} from '../../provider'
import { Mem0Client, Mem0Error } from './client'
import { MEM0_DEFAULT_USER, readMem0Settings, type Mem0Settings } from './settings'

export const MEM0_KEY_ENV = 'MEM0_API_KEY'

export interface Mem0Options {
  config?: Record<string, unknown> | null
  secrets?: Readonly<Record<string, string>>
  /** The profile's home, for mem0.json before `initialize` (which always names it). */
  home?: string
  fetch?: typeof fetch
  /** The process environment the MEM0_* fallbacks read (tests pass their own). */
  env?: Readonly<Record<string, string | undefined>>
}

/** After this many failures in a row, calls pause for the cool-down (a down server is not hammered). */
const BREAKER_THRESHOLD = 5
const BREAKER_COOLDOWN_MS = 120_000
/** How long the turn waits for its recall before going on without it (the search tool remains). */
const PREFETCH_WAIT_MS = 3_000

const SCHEMAS: MemoryToolSchema[] = [
  {
    name: 'mem0_search',
    description:
      "Search the user's long-term memories by meaning, most relevant first. Search before answering anything that " +
      'may depend on what you know about the user; for questions with several parts, search several times with ' +
      'different wording and follow up on what the results reveal.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for.' },
        top_k: { type: 'integer', description: 'How many results at most (default 10, at most 50).' },
        rerank: { type: 'boolean', description: 'Rerank the results by relevance (platform only; default off).' }
      },
      required: ['query']
    }
  },
  {
    name: 'mem0_add',
    description:
      'Store one lasting fact about the user exactly as written (no extraction). Store it as soon as the user ' +
      'states a preference, correction, decision or personal detail worth keeping; skip small talk and facts ' +
      'already stored.',
    parameters: {
      type: 'object',
      properties: { content: { type: 'string', description: 'The fact to keep.' } },
      required: ['content']
    }
  },
  {
    name: 'mem0_update',
    description:
      'Rewrite a stored memory by its ID (from a mem0_search result) when the fact changed or was wrong, instead ' +
      'of adding a second one.',
    parameters: {
      type: 'object',
      properties: {
        memory_id: { type: 'string', description: 'ID of the memory to rewrite.' },
        text: { type: 'string', description: 'Its new text.' }
      },
      required: ['memory_id', 'text']
    }
  },
  {
    name: 'mem0_delete',
    description:
      'Delete a stored memory by its ID (from a mem0_search result) when it no longer holds or the user asks to ' +
      'forget it; use mem0_update when it only changed.',
    parameters: {
      type: 'object',
      properties: { memory_id: { type: 'string', description: 'ID of the memory to delete.' } },
      required: ['memory_id']
    }
  }
]

/** Upstream's tool errors are `json.dumps({"error": ...}, ensure_ascii=False)`; its answers plain `json.dumps`. */
const toolError = (message: string) => pyJson({ error: message }, { ensureAscii: false })
const answer = (v: unknown) => pyJson(v)

export class Mem0Provider extends MemoryProvider {
  readonly name = 'mem0'
  private settings: Mem0Settings
  private userId = MEM0_DEFAULT_USER
  private channel = 'cli'
  private client: Mem0Client | null = null
  /** Why there is no usable client (bad settings, or the platform refused the key). */
  private initError: string | null = null
  /** Whether the platform accepted the key (a self-hosted server has no such check). */
  private checked = false
  private checking: Promise<void> | null = null
  private failures = 0
  private breakerUntil = 0
  private recall: { query: string; result: Promise<string>; value: string | null } | null = null

  constructor(private readonly opts: Mem0Options = {}) {
    super()
    this.settings = this.read(opts.home)
  }

  isAvailable(): boolean {
    return this.problem(this.settings) === null
  }

  unavailableReason(): string {
    return this.problem(this.settings) ?? ''
  }

  async initialize(_sessionId: string, options: InitializeOptions): Promise<void> {
    this.bind(options)
    await this.validated().catch(() => undefined)
  }

  /** The status page's read-only view: settings and identity, no request. */
  initializeForInspection(_sessionId: string, options: InitializeOptions): void {
    this.bind(options)
  }

  getToolSchemas(): MemoryToolSchema[] {
    return SCHEMAS
  }

  async handleToolCall(toolName: string, args: Record<string, unknown>): Promise<string> {
    const client = await this.usable().catch(() => null)
    if (!client) return answer({ error: `Mem0 backend not initialized: ${this.initError ?? 'unknown error'}.` })
    if (this.breakerOpen())
      return answer({
        error: 'Mem0 temporarily unavailable (multiple consecutive failures). Will retry automatically.'
      })
    switch (toolName) {
      case 'mem0_search':
        return this.searchTool(client, args)
      case 'mem0_add': {
        const content = args.content
        if (!content) return toolError('Missing required parameter: content')
        try {
          const out = await client.add([{ role: 'user', content: String(content) }], this.writeIds(false))
          this.succeeded()
          const eventId = isObj(out) && out.event_id !== undefined ? out.event_id : null
          // The platform stores asynchronously (server-side extraction); a self-hosted server at once.
          return answer({ result: this.settings.host ? 'Fact stored.' : 'Fact queued for storage.', event_id: eventId })
        } catch (err) {
          this.failed()
          return toolError(`Failed to store: ${errorMessage(err)}`)
        }
      }
      case 'mem0_update': {
        const { memory_id: id, text } = args
        if (!id) return toolError('Missing required parameter: memory_id')
        if (!text) return toolError('Missing required parameter: text')
        return this.byId('Update failed', id, () => client.update(String(id), String(text)), 'Memory updated.')
      }
      case 'mem0_delete': {
        const id = args.memory_id
        if (!id) return toolError('Missing required parameter: memory_id')
        return this.byId('Delete failed', id, () => client.delete(String(id)), 'Memory deleted.')
      }
      default:
        return toolError(`Unknown tool: ${toolName}`)
    }
  }

  writeOf(toolName: string): string | null {
    return toolName === 'mem0_add'
      ? 'add'
      : toolName === 'mem0_update'
        ? 'update'
        : toolName === 'mem0_delete'
          ? 'remove'
          : null
  }

  systemPromptBlock(): string {
    const where = this.settings.host ? 'a self-hosted Mem0 server' : 'the Mem0 platform'
    return (
      `## Mem0 Memory\nLong-term memory of this user is active (${where}; user ${this.userId}). Relevant ` +
      'memories are recalled into each turn, but search with mem0_search before answering anything that may ' +
      'depend on earlier conversations, several times for questions with several parts. Store lasting facts ' +
      'with mem0_add; fix or remove them by ID with mem0_update and mem0_delete.'
    )
  }

  onTurnStart(_turnNumber: number, message: string, _options?: TurnStartOptions): void {
    this.startRecall(message)
  }

  async prefetch(query: string, _options?: PrefetchOptions): Promise<string> {
    const held = this.takeRecall(query)
    if (held !== null) return held
    const pending = this.startRecall(query)
    if (!pending) return ''
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), PREFETCH_WAIT_MS)))
    await Promise.race([pending.result, late]).finally(() => clearTimeout(timer))
    // A slow server: this turn goes on without the recall; mem0_search stays available.
    return this.takeRecall(query) ?? ''
  }

  async syncTurn(userContent: string, assistantContent: string): Promise<void> {
    if (this.breakerOpen()) return
    const client = await this.usable().catch(() => null)
    if (!client) return
    try {
      await client.add(
        [
          { role: 'user', content: userContent },
          { role: 'assistant', content: assistantContent }
        ],
        this.writeIds(true)
      )
      this.succeeded()
    } catch (err) {
      this.failed()
      throw err
    }
  }

  shutdown(): void {
    this.client = null
    this.checking = null
    this.recall = null
  }

  /** Where memories go and whose they are: a change must never reuse an agent bound to the old ones. */
  identitySignature(): Record<string, unknown> {
    const s = this.settings
    return {
      mode: s.mode,
      host: s.host,
      base_url: s.host ? '' : s.cloudUrl,
      user_id: s.userId ?? '',
      agent_id: s.agentId
    }
  }

  // ---------------------------------------------------------------- internals

  private read(home: string | undefined): Mem0Settings {
    return readMem0Settings({ home, config: this.opts.config, secrets: this.opts.secrets, env: this.opts.env })
  }

  private problem(s: Mem0Settings): string | null {
    if (s.mode === 'oss')
      return "mem0's OSS mode (mode: oss in mem0.json) runs Mem0's Python engine inside upstream's process; Caduceus does not support it. Use the Mem0 platform or a self-hosted Mem0 server (host in mem0.json or MEM0_HOST)."
    // mem0.json that could not be used is ignored, as upstream ignores it; the reason names it, since it may be
    // where the server was meant to be set.
    const file = s.fileError ? `; mem0.json was ignored: ${s.fileError}` : ''
    if (!s.apiKey && !s.host)
      return `${MEM0_KEY_ENV} is not set in the profile's .env (and no self-hosted server is set: host in mem0.json or MEM0_HOST${file})`
    return null
  }

  /** Settings from the home this instance serves (upstream reads mem0.json at initialize too). */
  private bind(options: InitializeOptions): void {
    this.settings = this.read(options.hermesHome)
    const s = this.settings
    this.userId = s.userId ?? (options.userId ? String(options.userId) : MEM0_DEFAULT_USER)
    this.channel = options.platform || 'cli'
    this.client = null
    this.checked = Boolean(s.host)
    this.checking = null
    this.recall = null
    this.initError = this.problem(s)
    if (this.initError) return
    if (s.host) {
      // A self-hosted server gets the key only when one is set (a server may run without auth).
      this.client = new Mem0Client({
        protocol: 'selfhosted',
        baseUrl: s.host,
        apiKey: s.apiKey,
        fetch: this.opts.fetch
      })
      return
    }
    if (!s.apiKey) {
      this.initError = 'Mem0 API Key not provided. Please provide an API Key.'
      return
    }
    this.client = new Mem0Client({ protocol: 'cloud', baseUrl: s.cloudUrl, apiKey: s.apiKey, fetch: this.opts.fetch })
  }

  /** The platform's key check: once per binding, again on the next call after a failure. */
  private async validated(): Promise<void> {
    if (this.checked || !this.client) return
    this.checking ??= this.client.validate()
    const check = this.checking
    try {
      await check
      this.checked = true
      this.initError = null
    } catch (err) {
      this.initError = `Error: ${errorMessage(err)}`
      throw err
    } finally {
      if (this.checking === check) this.checking = null
    }
  }

  private async usable(): Promise<Mem0Client | null> {
    if (!this.client) return null
    await this.validated()
    return this.client
  }

  private async searchTool(client: Mem0Client, args: Record<string, unknown>): Promise<string> {
    const query = args.query
    if (!query) return toolError('Missing required parameter: query')
    try {
      const raw = args.top_k ?? 10
      const n = pyIntValue(raw)
      if (n === null) throw new Error(pyIntError(raw))
      const topK = Math.max(1, Math.min(n, 50))
      const rr = 'rerank' in args ? args.rerank : this.settings.rerank
      const rerank = typeof rr === 'string' ? !['false', '0', 'no'].includes(rr.toLowerCase()) : Boolean(rr)
      const found = await client.search(String(query), { user_id: this.userId }, topK, rerank)
      this.succeeded()
      if (!found.length) return answer({ result: 'No relevant memories found.' })
      const results = found.map((r) => ({ id: r.id ?? null, memory: r.memory ?? '', score: r.score ?? 0 }))
      return answer({ results, count: results.length })
    } catch (err) {
      if (!isClientError(err)) this.failed()
      return toolError(`Search failed: ${errorMessage(err)}`)
    }
  }

  private async byId(what: string, id: unknown, call: () => Promise<void>, done: string): Promise<string> {
    try {
      await call()
      this.succeeded()
      return answer({ result: done, memory_id: id })
    } catch (err) {
      if (isClientError(err)) return toolError(`Memory not found: ${String(id)}`)
      this.failed()
      return toolError(`${what}: ${errorMessage(err)}`)
    }
  }

  private writeIds(infer: boolean) {
    return {
      userId: this.userId,
      agentId: this.settings.agentId,
      infer,
      metadata: this.channel ? { channel: this.channel } : undefined
    }
  }

  /** One search per query: a recall started at turn start is what the prefetch of the same text returns. */
  private startRecall(query: string): NonNullable<Mem0Provider['recall']> | null {
    if (!query || !this.client || this.breakerOpen()) return null
    if (this.recall?.query === query) return this.recall
    const entry: NonNullable<Mem0Provider['recall']> = { query, value: null, result: Promise.resolve('') }
    entry.result = (async () => {
      let body = ''
      try {
        const client = await this.usable()
        if (client) {
          const found = await client.search(query, { user_id: this.userId }, 10, false)
          const lines = found.map((r) => (typeof r.memory === 'string' ? r.memory : '')).filter(Boolean)
          if (lines.length) body = ['## Mem0 Memory', ...lines.map((l) => `- ${l}`)].join('\n')
          this.succeeded()
        }
      } catch {
        this.failed() // the breaker counts it; a failed recall adds nothing to this turn, as upstream's
      }
      entry.value = body
      return body
    })()
    this.recall = entry
    return entry
  }

  private takeRecall(query: string): string | null {
    const r = this.recall
    if (!r || r.query !== query || r.value === null) return null
    this.recall = null
    return r.value
  }

  private breakerOpen(): boolean {
    if (this.failures < BREAKER_THRESHOLD) return false
    if (Date.now() >= this.breakerUntil) {
      this.failures = 0
      return false
    }
    return true
  }

  private succeeded(): void {
    this.failures = 0
  }

  private failed(): void {
    this.failures += 1
    if (this.failures >= BREAKER_THRESHOLD) this.breakerUntil = Date.now() + BREAKER_COOLDOWN_MS
  }
}

/** A wrong or unknown ID is the caller's mistake, not the server's: it does not count towards the breaker. */
function isClientError(err: unknown): boolean {
  if (err instanceof Mem0Error && (err.status === 404 || err.status === 400 || err.status === 422)) return true
  const s = errorMessage(err).toLowerCase()
  return s.includes('404') || s.includes('not found') || s.includes('valid uuid')
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
