/**
 * `holographic`: the local fact-store provider, compatible with upstream's plugin file and tools. Every
 * fact gets its HRR vector and its category's bank as upstream (with numpy) writes them, so each side's
 * probe / related / reason finds the other's facts; facts stored without a vector get one at start-up.
 */
import type Database from 'better-sqlite3'
import {
  MemoryProvider,
  type ChatMessage,
  type InitializeOptions,
  type MemoryToolSchema,
  type MemoryWriteAction,
  type MemoryWriteTarget
} from '../../provider'
import { holographicConfig, holographicDbPath, type HolographicConfig } from './config'
import { openFactDb } from './schema'
import { search } from './retrieval'
import { FactStore, storeWidthProblem } from './store'
import { extractFacts } from './text'
import { FACT_FEEDBACK_SCHEMA, FACT_STORE_SCHEMA, runFactFeedback, runFactStore } from './tools'

export interface HolographicOptions {
  /** The profile's parsed config.yaml (for `plugins.hermes-memory-store`). */
  config?: Record<string, unknown> | null
  /** Home the config's `$HERMES_HOME` expands to (identity before initialize). */
  home?: string
  nativeBinding?: string
}

const PREFETCH_LIMIT = 5

/** Trust as upstream prints it (`{:.1f}`): one decimal, exact halves to even (0.25 → 0.2). */
function oneDecimal(n: number): string {
  const q = n * 4
  if (Number.isInteger(q) && q % 2 !== 0) {
    const down = Math.floor(n * 10) / 10
    return (Math.round(down * 10) % 2 === 0 ? down : down + 0.1).toFixed(1)
  }
  return n.toFixed(1)
}

export class HolographicProvider extends MemoryProvider {
  readonly name = 'holographic'
  private db: Database.Database | null = null
  private store: FactStore | null = null
  private cfg: HolographicConfig | null = null
  private dbPath: string | null
  /** Why initialize refused (a setting Python cannot convert, a store of another width): every tool call says it. */
  private refusal: Error | null = null

  constructor(private readonly opts: HolographicOptions = {}) {
    super()
    this.dbPath = opts.home ? holographicDbPath(opts.config, opts.home) : null
  }

  isAvailable(): boolean {
    return true
  }

  /**
   * What initialize would refuse, for the picker, before a turn meets it: a setting it cannot use (as upstream's
   * conversion would raise), or a store whose vectors are of another width than hrr_dim; '' when there is neither.
   */
  setupProblem(): string {
    if (!this.opts.home) return ''
    try {
      const cfg = holographicConfig(this.opts.config, this.opts.home)
      return storeWidthProblem(cfg.dbPath, cfg.hrrDim, this.opts.nativeBinding)
    } catch (err) {
      return err instanceof Error ? err.message : String(err)
    }
  }

  initialize(_sessionId: string, options: InitializeOptions): void {
    this.shutdown()
    this.dbPath = holographicDbPath(this.opts.config, options.hermesHome)
    try {
      this.cfg = holographicConfig(this.opts.config, options.hermesHome)
      this.db = openFactDb(this.cfg.dbPath, this.opts.nativeBinding)
      const store = new FactStore(this.db, this.cfg.defaultTrust, this.cfg.hrrDim)
      // Before anything is written: a store of another width is refused, never re-encoded or re-banked.
      store.assertWidth()
      store.backfillVectors()
      this.store = store
    } catch (err) {
      this.shutdown()
      this.cfg = null
      this.refusal = err instanceof Error ? err : new Error(String(err))
      throw this.refusal
    }
  }

  getToolSchemas(): MemoryToolSchema[] {
    return [FACT_STORE_SCHEMA, FACT_FEEDBACK_SCHEMA]
  }

  /** fact_store add / update / remove and fact_feedback change facts; every other action reads. */
  writeOf(toolName: string, args: Record<string, unknown>): string | null {
    if (toolName === 'fact_feedback') return 'feedback'
    const action = toolName === 'fact_store' ? args.action : null
    return action === 'add' || action === 'update' || action === 'remove' ? action : null
  }

  handleToolCall(toolName: string, args: Record<string, unknown>): string {
    const store = this.ready()
    try {
      if (toolName === 'fact_store') return JSON.stringify(runFactStore(store, args, this.rankDefaults()))
      if (toolName === 'fact_feedback') return JSON.stringify(runFactFeedback(store, args))
      return JSON.stringify({ error: `Unknown tool: ${toolName}` })
    } catch (err) {
      // Like upstream, any failure (a UNIQUE clash on update, a busy file) is the tool's error reply.
      return JSON.stringify({ error: err instanceof Error ? err.message : String(err) })
    }
  }

  systemPromptBlock(): string {
    if (!this.store) return ''
    const n = this.store.count()
    return n > 0
      ? `## Holographic Memory\nA local fact store is active with ${n} fact${n === 1 ? '' : 's'}. Use fact_store (search, probe, related, reason) to recall, add durable facts as you learn them, and fact_feedback to rate recalled facts.`
      : '## Holographic Memory\nA local fact store is active and empty. Add durable facts (user preferences, project decisions, tool quirks) with fact_store action=add.'
  }

  prefetch(query: string): string {
    if (!this.store || !query.trim()) return ''
    const facts = search(this.store, query, { ...this.rankDefaults(), limit: PREFETCH_LIMIT })
    if (facts.length === 0) return ''
    return ['## Holographic Memory', ...facts.map((f) => `- [${oneDecimal(f.trust_score)}] ${f.content}`)].join('\n')
  }

  /** Facts are explicit (tool calls): a turn by itself stores nothing. */
  syncTurn(): void {}

  onSessionEnd(messages: ChatMessage[]): void {
    if (!this.store || !this.cfg?.autoExtract) return
    // Upstream skips a message whose add fails and goes on; the first failure is still reported (health).
    let failed: unknown = null
    for (const m of messages) {
      if (m.role !== 'user' || typeof m.content !== 'string') continue
      for (const fact of extractFacts(m.content)) {
        try {
          this.store.add(fact.content, fact.category)
        } catch (err) {
          failed ??= err
        }
      }
    }
    if (failed) throw failed
  }

  /** Mirror built-in memory adds as facts. */
  onMemoryWrite(action: MemoryWriteAction, target: MemoryWriteTarget, content: string): void {
    if (!this.store || action !== 'add' || !content.trim()) return
    this.store.add(content, target === 'user' ? 'user_pref' : 'general')
  }

  shutdown(): void {
    this.db?.close()
    this.db = null
    this.store = null
    this.refusal = null
  }

  backupPaths(): string[] {
    return this.dbPath ? [this.dbPath] : []
  }

  /** Which file this provider serves: pointing db_path elsewhere rebuilds cached agents. */
  identitySignature(): Record<string, unknown> {
    return this.dbPath ? { db_path: this.dbPath } : {}
  }

  private rankDefaults() {
    return {
      minTrust: this.cfg?.minTrustThreshold ?? 0.3,
      hrrWeight: this.cfg?.hrrWeight ?? 0.3,
      halfLifeDays: this.cfg?.temporalDecayHalfLife ?? 0
    }
  }

  private ready(): FactStore {
    if (this.refusal) throw this.refusal
    if (!this.store) throw new Error('holographic memory is not initialized for this profile')
    return this.store
  }
}
