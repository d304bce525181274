/**
 * Profile discovery under a Hermes root (hermes-spec §1.1) and a registry that opens each profile's
 * SessionStore lazily. `default` is always listed (its DB is created on first open).
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CaduceusError, type SearchHit, type SessionPage, type SessionSummary } from '@shared/contract'
import { isValidProfileName } from '../scope'
import { SessionStore } from './session-store'
import type { ListOptions } from './read-list'

export interface ProfileEntry { name: string; home: string; dbPath: string }

const isDir = (p: string) => { try { return statSync(p).isDirectory() } catch { return false } }

export function discoverProfiles(root: string): ProfileEntry[] {
  const base = resolve(root)
  const out: ProfileEntry[] = [{ name: 'default', home: base, dbPath: join(base, 'state.db') }]
  const dir = join(base, 'profiles')
  let names: string[] = []
  try { names = readdirSync(dir) } catch { return out }
  for (const name of names.sort()) {
    // Dot-names are never profiles; a tombstone in profiles/.deleted/ means "deleted, do not resurrect".
    if (name.startsWith('.') || !isValidProfileName(name) || name === 'default') continue
    if (existsSync(join(dir, '.deleted', name))) continue
    const home = join(dir, name)
    if (!isDir(home)) continue
    out.push({ name, home, dbPath: join(home, 'state.db') })
  }
  return out
}

export interface RegistryOptions {
  /** Off-loop write retry budget (ms) per profile; read when a write meets a foreign lock. Default 60 s. */
  writeRetryMs?: (entry: ProfileEntry) => number | undefined
}

export class StoreRegistry {
  readonly root: string
  private entries: ProfileEntry[]
  private stores = new Map<string, SessionStore>()

  constructor(root: string, private readonly opts: RegistryOptions = {}) {
    this.root = resolve(root)
    this.entries = discoverProfiles(this.root)
  }

  list(): ProfileEntry[] { return [...this.entries] }

  /** Re-scans the root; returns names that appeared. Stores of vanished profiles are closed. */
  refresh(): string[] {
    const before = new Set(this.entries.map((e) => e.name))
    this.entries = discoverProfiles(this.root)
    const now = new Set(this.entries.map((e) => e.name))
    for (const [name, store] of this.stores) if (!now.has(name)) { store.close(); this.stores.delete(name) }
    return [...now].filter((n) => !before.has(n))
  }

  has(profile: string): boolean { return this.entries.some((e) => e.name === profile) }

  get(profile: string): SessionStore {
    const open = this.stores.get(profile)
    if (open) return open
    const entry = this.entries.find((e) => e.name === profile)
    if (!entry) throw new CaduceusError('not_found', `Unknown profile: ${profile}`, 'profile')
    const retry = this.opts.writeRetryMs
    const store = new SessionStore(entry.dbPath, { profile: entry.name, writeRetryMs: retry && (() => retry(entry)) })
    this.stores.set(profile, store)
    return store
  }

  /** Stores opened so far (for wiring watchers). */
  opened(): SessionStore[] { return [...this.stores.values()] }

  closeAll(): void {
    for (const s of this.stores.values()) s.close()
    this.stores.clear()
  }

  /** Merged list across profiles; the cursor carries one keyset position per profile. */
  listAll(q: ListOptions = {}): SessionPage {
    const limit = Math.max(1, Math.min(500, Math.floor(q.limit ?? 100)))
    let cursors: Record<string, string | null | false> = {}
    if (q.cursor) {
      try { cursors = JSON.parse(Buffer.from(q.cursor, 'base64url').toString('utf8')) } catch { /* validated below */ }
      if (!cursors || typeof cursors !== 'object' || Array.isArray(cursors)) throw new CaduceusError('invalid_input', 'invalid cursor', 'cursor')
    }
    const pages = this.entries.filter((e) => cursors[e.name] !== false).map((e) => {
      const page = this.get(e.name).listSessions({ ...q, limit, cursor: (cursors[e.name] as string | null | undefined) ?? null })
      return { name: e.name, page }
    })
    const merged = pages.flatMap((p) => p.page.items.map((item, i) => ({ p, item, i })))
      .sort((a, b) => b.item.lastActiveAt - a.item.lastActiveAt || b.item.startedAt - a.item.startedAt || (a.item.id < b.item.id ? 1 : -1))
    const taken = merged.slice(0, limit)
    const next: Record<string, string | null | false> = {}
    let more = false
    for (const { name, page } of pages) {
      const mine = taken.filter((t) => t.p.page === page)
      const all = mine.length === page.items.length
      if (all) next[name] = page.nextCursor ?? false
      else {
        // Resume this profile right after the last item we used from it.
        const last = mine[mine.length - 1]?.item as SessionSummary | undefined
        next[name] = last ? cursorAfter(last) : (cursors[name] as string | null | undefined) ?? null
      }
      if (next[name] !== false) more = true
    }
    for (const [name, c] of Object.entries(cursors)) if (c === false) next[name] = false
    return { items: taken.map((t) => t.item), nextCursor: more ? Buffer.from(JSON.stringify(next)).toString('base64url') : null }
  }

  searchAll(q: { query: string; limit?: number }): SearchHit[] {
    const limit = Math.max(1, Math.min(200, q.limit ?? 50))
    return this.entries.flatMap((e) => this.get(e.name).search({ query: q.query, limit }))
      .sort((a, b) => b.timestamp - a.timestamp).slice(0, limit)
  }
}

function cursorAfter(s: SessionSummary): string {
  return Buffer.from(JSON.stringify([s.lastActiveAt, s.startedAt, s.id]), 'utf8').toString('base64url')
}
