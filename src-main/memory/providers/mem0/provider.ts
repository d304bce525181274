/**
 * `mem0`: the hosted Mem0 platform (or a self-hosted server at `plugins.mem0.base_url`). Key from the
 * profile's `.env` (`MEM0_API_KEY`). Turns are synced in the background; recall is a search per turn.
 */
import { isPlainObject } from '../../../config'
import {
  MemoryProvider,
  type MemoryToolSchema,
  type MemoryWriteAction,
  type MemoryWriteTarget,
  type InitializeOptions
} from '../../provider'
import { Mem0Client } from './client'

export const MEM0_DEFAULT_BASE_URL = 'https://api.mem0.ai'
export const MEM0_KEY_ENV = 'MEM0_API_KEY'

export interface Mem0Options {
  config?: Record<string, unknown> | null
  secrets?: Readonly<Record<string, string>>
  fetch?: typeof fetch
}

const SEARCH_SCHEMA: MemoryToolSchema = {
  name: 'mem0_search',
  description: 'Search long-term memories stored in Mem0 about the user and past work.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
    required: ['query']
  }
}
const ADD_SCHEMA: MemoryToolSchema = {
  name: 'mem0_add',
  description: 'Store a durable fact in Mem0 (preferences, decisions, facts worth remembering).',
  parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] }
}

export class Mem0Provider extends MemoryProvider {
  readonly name = 'mem0'
  private readonly baseUrl: string
  private readonly apiKey: string
  private readonly configuredUser: string | null
  private readonly agentId: string | undefined
  private userId = 'hermes-user'
  private client: Mem0Client | null = null

  constructor(private readonly opts: Mem0Options = {}) {
    super()
    const plugins = isPlainObject(opts.config?.plugins) ? (opts.config!.plugins as Record<string, unknown>) : {}
    const c = isPlainObject(plugins.mem0) ? (plugins.mem0 as Record<string, unknown>) : {}
    this.baseUrl = typeof c.base_url === 'string' && c.base_url.trim() ? c.base_url.trim() : MEM0_DEFAULT_BASE_URL
    this.configuredUser = typeof c.user_id === 'string' && c.user_id.trim() ? c.user_id.trim() : null
    this.agentId = typeof c.agent_id === 'string' && c.agent_id.trim() ? c.agent_id.trim() : undefined
    this.apiKey = opts.secrets?.[MEM0_KEY_ENV] ?? ''
  }

  isAvailable(): boolean {
    return this.apiKey.length > 0
  }

  unavailableReason(): string {
    return this.apiKey ? '' : `${MEM0_KEY_ENV} is not set in the profile's .env`
  }

  initialize(_sessionId: string, options: InitializeOptions): void {
    this.userId =
      this.configuredUser ??
      (options.userId
        ? String(options.userId)
        : options.agentIdentity
          ? `hermes-${options.agentIdentity}`
          : 'hermes-user')
    this.client = new Mem0Client({ baseUrl: this.baseUrl, apiKey: this.apiKey, fetch: this.opts.fetch })
  }

  getToolSchemas(): MemoryToolSchema[] {
    return [SEARCH_SCHEMA, ADD_SCHEMA]
  }

  async handleToolCall(toolName: string, args: Record<string, unknown>): Promise<string> {
    const client = this.ready()
    if (toolName === 'mem0_search') {
      const query = typeof args.query === 'string' ? args.query.trim() : ''
      if (!query) return JSON.stringify({ error: 'Missing required argument: query' })
      const limit = Number.isInteger(args.limit) ? Math.min(50, Math.max(1, args.limit as number)) : 10
      const results = await client.search(query, { userId: this.userId }, limit)
      return JSON.stringify({ results, count: results.length })
    }
    if (toolName === 'mem0_add') {
      const content = typeof args.content === 'string' ? args.content.trim() : ''
      if (!content) return JSON.stringify({ error: 'Missing required argument: content' })
      await client.add([{ role: 'user', content }], { userId: this.userId, agentId: this.agentId })
      return JSON.stringify({ status: 'added' })
    }
    return JSON.stringify({ error: `Unknown tool: ${toolName}` })
  }

  writeOf(toolName: string): string | null {
    return toolName === 'mem0_add' ? 'add' : null
  }

  systemPromptBlock(): string {
    return '## Mem0 Memory\nLong-term memory is served by Mem0. Relevant memories are recalled into each turn; use mem0_search for more and mem0_add to store durable facts.'
  }

  async prefetch(query: string): Promise<string> {
    if (!this.client || !query.trim()) return ''
    const found = await this.client.search(query, { userId: this.userId }, 5)
    return found.length ? ['## Mem0 Memory', ...found.map((m) => `- ${m.memory}`)].join('\n') : ''
  }

  async syncTurn(userContent: string, assistantContent: string): Promise<void> {
    if (!this.client || (!userContent.trim() && !assistantContent.trim())) return
    await this.client.add(
      [
        { role: 'user', content: userContent },
        { role: 'assistant', content: assistantContent }
      ],
      { userId: this.userId, agentId: this.agentId }
    )
  }

  async onMemoryWrite(action: MemoryWriteAction, target: MemoryWriteTarget, content: string): Promise<void> {
    if (!this.client || action !== 'add' || !content.trim()) return
    await this.client.add(
      [{ role: 'user', content }],
      { userId: this.userId, agentId: this.agentId },
      { source: 'hermes_memory', target }
    )
  }

  shutdown(): void {
    this.client = null
  }

  /** Who and where: a changed user or server must never reuse an agent bound to the old one. */
  identitySignature(): Record<string, unknown> {
    return { base_url: this.baseUrl, user_id: this.configuredUser ?? '' }
  }

  private ready(): Mem0Client {
    if (!this.client) throw new Error('mem0 memory is not initialized for this profile')
    return this.client
  }
}
