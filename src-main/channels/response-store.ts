/**
 * Stored Responses (hermes-channels §1): one JSON file each under `<profile home>/caduceus/api-responses/` (0600 in a
 * 0700 folder: they hold conversation text), so `previous_response_id` and GET survive a server restart, plus the
 * named conversations (`conversation`: a name → its latest response, as upstream keeps them) in `conversations.json`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { replaceFile } from '../files'

const MAX_KEPT = 1000
const CONVERSATIONS = 'conversations.json'

interface Kept {
  body: Record<string, unknown>
  sessionId: string
}

const RESPONSE_ID = /^resp_[0-9a-f]{24}$/

/** The instructions a stored response was given (its echoed `instructions`), for a request chained onto it. */
export const carriedInstructions = (k: { body: Record<string, unknown> } | undefined): string | null =>
  typeof k?.body.instructions === 'string' && k.body.instructions ? k.body.instructions : null

/**
 * Bounded: past MAX_KEPT the oldest response (and conversation name) goes. Without a folder (tests of the routes
 * alone) it is memory only. Only ids of our own shape ever touch the disk, so a crafted id cannot name another path;
 * conversation names live inside one file, never in a path.
 */
export class ResponseStore {
  /** Conversation name → its latest response id, oldest name first. */
  private readonly conversations = new Map<string, string>()
  private readonly kept = new Map<string, Kept>()
  private readonly order: string[] = []

  constructor(private readonly dir: string | null = null) {
    if (!dir) return
    try {
      const files = readdirSync(dir)
        .filter((f) => RESPONSE_ID.test(f.replace(/\.json$/, '')))
        .map((f) => ({ id: f.replace(/\.json$/, ''), at: statSync(join(dir, f)).mtimeMs }))
        .sort((a, b) => a.at - b.at)
      this.order.push(...files.map((f) => f.id))
    } catch {
      /* no folder yet (or one that cannot be listed): nothing stored; a write says what is wrong */
    }
    try {
      const named = JSON.parse(readFileSync(join(dir, CONVERSATIONS), 'utf8')) as unknown
      if (named && typeof named === 'object' && !Array.isArray(named))
        for (const [name, id] of Object.entries(named)) if (typeof id === 'string') this.conversations.set(name, id)
    } catch {
      /* none named yet, or a file that cannot be read as names: none, as a stored response that cannot be read */
    }
  }

  /** The latest response of a named conversation still stored, if any. */
  latestOf(name: string): Kept | undefined {
    const id = this.conversations.get(name)
    return id ? this.get(id) : undefined
  }

  /** `id` is now the latest response of the conversation `name`. */
  name(name: string, id: string): void {
    this.conversations.delete(name)
    this.conversations.set(name, id)
    while (this.conversations.size > MAX_KEPT) this.conversations.delete(this.conversations.keys().next().value!)
    if (this.dir) this.writeJson(join(this.dir, CONVERSATIONS), Object.fromEntries(this.conversations))
  }

  get(id: string): Kept | undefined {
    const hit = this.kept.get(id)
    if (hit || !this.dir || !RESPONSE_ID.test(id)) return hit
    try {
      const k = JSON.parse(readFileSync(this.file(id), 'utf8')) as Kept
      return k && typeof k.sessionId === 'string' && k.body && typeof k.body === 'object' ? k : undefined
    } catch {
      return undefined // gone (dropped, deleted) or unreadable: the API answers it as not found
    }
  }

  /** Stores `k` under `id`; a later put of the same id (a streamed response's next snapshot) replaces it. */
  put(id: string, k: Kept): void {
    if (!this.order.includes(id)) this.order.push(id)
    if (!this.dir || !this.writeFile(id, k)) this.kept.set(id, k)
    while (this.order.length > MAX_KEPT) this.drop(this.order.shift()!)
  }

  delete(id: string): boolean {
    const i = this.order.indexOf(id)
    if (i < 0) return false
    this.order.splice(i, 1)
    this.drop(id)
    return true
  }

  /** False when the disk refuses (full, read-only): the response is then kept in memory for this run. */
  private writeFile(id: string, k: Kept): boolean {
    return this.writeJson(this.file(id), k)
  }

  private writeJson(file: string, value: unknown): boolean {
    try {
      mkdirSync(this.dir!, { recursive: true, mode: 0o700 })
      // 0600: a stored conversation is the user's. The temp file is gone when the write fails.
      replaceFile(file, JSON.stringify(value), { modeOf: () => 0o600 })
      return true
    } catch {
      return false // the disk refuses (full, read-only): the caller keeps it in memory (writeFile)
    }
  }

  private drop(id: string): void {
    this.kept.delete(id)
    if (this.dir) rmSync(this.file(id), { force: true })
  }

  private file(id: string): string {
    return join(this.dir!, `${id}.json`)
  }
}
