/**
 * Profile discovery under a Hermes root (hermes-spec §1.1) and a registry that opens each profile's
 * SessionStore lazily. `default` is always listed (its DB is created on first open).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  CaduceusError,
  type ProfileProblem,
  type SearchHit,
  type SearchResult,
  type SearchSessionGroup,
  type SessionPage,
  type SessionSummary
} from '@shared/contract'
import { isValidProfileName } from '../scope'
import { SessionStore } from './session-store'
import { isBusy } from './write-queue'
import { StoreClosedError } from './errors'
import { compareSortValues, sortCursorAfter, type ListOptions, type SortValue } from './read-list'
import type { SearchFilters } from './search'
import { errorMessage, isNotFound, parseJsonOr } from '@shared/contract/errors'

export interface ProfileEntry {
  name: string
  home: string
  dbPath: string
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory()
  } catch {
    // not there, or not ours to enter: not a profile this host can serve
    return false
  }
}

export function discoverProfiles(root: string): ProfileEntry[] {
  const base = resolve(root)
  const out: ProfileEntry[] = [{ name: 'default', home: base, dbPath: join(base, 'state.db') }]
  const dir = join(base, 'profiles')
  let names: string[] = []
  try {
    names = readdirSync(dir)
  } catch {
    // no profiles folder (or one this process may not list): the default profile alone, as upstream lists it
    return out
  }
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
  /** The profile's `database.journal_mode` (config.yaml); read at its first write. */
  journalMode?: (entry: ProfileEntry) => string | undefined
  /** A first write that could not switch the profile to WAL says why, once. */
  onJournalNotice?: (profile: string, message: string) => void
  /** The better-sqlite3 addon build every store of this registry loads (the app's Electron-ABI copy). */
  nativeBinding?: string
  /**
   * What else a view of the profile's sessions should say about it, beside its state.db's own notice (a memory file
   * the agent's prompt goes without), each a notice of its own.
   */
  profileNotices?: (entry: ProfileEntry) => string[]
  /**
   * A view of every profile was served without this one because another program held its state.db locked (named
   * in the view's `unavailable`). Nothing else would say when that lock goes (no read of it waits): the host watches
   * for it, so the views that left the profile out read it again.
   */
  onLockedOut?: (profile: string) => void
  /**
   * The first use after `closeAll` (a store asked of the registry, or a write to a store it had opened), told once:
   * something the host started outlived its close. Refused all the same, with a clear error.
   */
  onClosedUse?: (message: string) => void
}

export class StoreRegistry {
  readonly root: string
  private entries: ProfileEntry[]
  private stores = new Map<string, SessionStore>()
  private closed = false
  private toldClosedUse = false

  constructor(
    root: string,
    private readonly opts: RegistryOptions = {}
  ) {
    this.root = resolve(root)
    this.entries = discoverProfiles(this.root)
  }

  list(): ProfileEntry[] {
    return [...this.entries]
  }

  /** Re-scans the root; returns names that appeared. Stores of vanished profiles are closed. */
  refresh(): string[] {
    const before = new Set(this.entries.map((e) => e.name))
    this.entries = discoverProfiles(this.root)
    const now = new Set(this.entries.map((e) => e.name))
    for (const [name, store] of this.stores)
      if (!now.has(name)) {
        store.close()
        this.stores.delete(name)
      }
    return [...now].filter((n) => !before.has(n))
  }

  has(profile: string): boolean {
    return this.entries.some((e) => e.name === profile)
  }

  /**
   * The profile `<root>/active_profile` names (`hermes profile use` writes it, and upstream's CLI acts on that
   * profile when nothing else names one), trimmed and lower-cased as upstream normalises it; null when there is no
   * such file, it is empty or not UTF-8 (upstream ignores it then), or it names `default`. Read each time (another
   * program switches it); not checked against the profiles on disk (`has`).
   */
  activeProfileName(): string | null {
    const read = this.readActiveProfile()
    if (typeof read !== 'string') return null
    const name = read.trim().toLowerCase()
    return name && name !== 'default' ? name : null
  }

  /**
   * Why `<root>/active_profile` is there but cannot be used (no permission, a folder in its place, bytes that are not
   * UTF-8), or null. Upstream falls back to `default` without a word then, and so does `activeProfileName`; this is
   * the word, shown with the default profile, so a `hermes profile use` that is not being followed is seen.
   */
  activeProfileProblem(): string | null {
    const read = this.readActiveProfile()
    return typeof read === 'string' || read === null ? null : read.problem
  }

  /** The file's text; null when there is none; the problem when it is there but cannot be read as text. */
  private readActiveProfile(): string | null | { problem: string } {
    const file = join(this.root, 'active_profile')
    let bytes: Buffer
    try {
      bytes = readFileSync(file)
    } catch (err) {
      if (isNotFound(err)) return null
      return { problem: `${file} cannot be read (${errorMessage(err)}), so the default profile is used` }
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      // the decoder's only failure: a byte that is not UTF-8 (upstream's read_text raises and falls back the same)
      return { problem: `${file} is not UTF-8 text, so the default profile is used` }
    }
  }

  get(profile: string): SessionStore {
    const open = this.stores.get(profile)
    if (open) return open
    // After shutdown a late task (start-up restore, a timer) must not reopen a file nobody will close, nor create it.
    if (this.closed) {
      const err = new StoreClosedError(profile)
      this.closedUse(err)
      throw err
    }
    const entry = this.entries.find((e) => e.name === profile)
    if (!entry) throw new CaduceusError('not_found', `Unknown profile: ${profile}`, 'profile')
    const retry = this.opts.writeRetryMs
    const store = new SessionStore(entry.dbPath, {
      profile: entry.name,
      lazyCreate: true,
      writeRetryMs: retry && (() => retry(entry)),
      journalMode: () => this.opts.journalMode?.(entry),
      onJournalNotice: (message) => this.opts.onJournalNotice?.(entry.name, message),
      nativeBinding: this.opts.nativeBinding,
      onClosedUse: (err) => this.closedUse(err)
    })
    this.stores.set(profile, store)
    return store
  }

  /**
   * Every profile's store that opens, and the ones that do not with their reason: one unreadable state.db
   * must not blank a cross-profile view. A failed open is retried next time (the file may be repaired).
   */
  healthy(only?: (name: string) => boolean): {
    stores: Array<{ profile: string; store: SessionStore }>
    unavailable: ProfileProblem[]
    notices: ProfileProblem[]
  } {
    const stores: Array<{ profile: string; store: SessionStore }> = []
    const unavailable: ProfileProblem[] = []
    const notices: ProfileProblem[] = []
    for (const e of this.entries) {
      if (only && !only(e.name)) continue
      try {
        const store = this.get(e.name)
        // read before the store is taken: a notice that cannot be read (a lock) left the store in the list too, so
        // the profile was named unreadable twice
        const own = this.noticesOf(e, store)
        stores.push({ profile: e.name, store })
        notices.push(...own)
      } catch (err) {
        unavailable.push(this.leftOut(e.name, err))
      }
    }
    return { stores, unavailable, notices }
  }

  /** A profile a cross-profile view is served without, and why; a lock is told (`onLockedOut`). */
  leftOut(profile: string, err: unknown): ProfileProblem {
    if (isBusy(err))
      try {
        this.opts.onLockedOut?.(profile)
      } catch {
        /* the view is served all the same */
      }
    return { profile, reason: problemOf(err) }
  }

  /** One profile's store (its open failing throws: the view of it alone is an error), with its notice if it has one. */
  private one(profile: string): ReturnType<StoreRegistry['healthy']> {
    const store = this.get(profile)
    const entry = this.entries.find((e) => e.name === profile)!
    return { stores: [{ profile, store }], unavailable: [], notices: this.noticesOf(entry, store) }
  }

  private noticesOf(entry: ProfileEntry, store: SessionStore): ProfileProblem[] {
    const reasons = [store.notice, ...(this.opts.profileNotices?.(entry) ?? [])]
    return reasons.filter((r): r is string => !!r).map((reason) => ({ profile: entry.name, reason }))
  }

  /** Stores opened so far (for wiring watchers). */
  opened(): SessionStore[] {
    return [...this.stores.values()]
  }

  private closedUse(err: StoreClosedError): void {
    // (a store closed because its profile vanished is refused too, without a word: the profile is gone)
    if (!this.closed || this.toldClosedUse) return
    this.toldClosedUse = true
    try {
      this.opts.onClosedUse?.(err.message)
    } catch {
      /* refused all the same */
    }
  }

  closeAll(): void {
    this.closed = true
    for (const s of this.stores.values()) s.close()
    this.stores.clear()
  }

  /** Merged list across profiles; the cursor carries one keyset position per profile. */
  listAll(q: ListOptions = {}): SessionPage {
    const limit = Math.max(1, Math.min(500, Math.floor(q.limit ?? 100)))
    let cursors: Record<string, string | null | false> = {}
    if (q.cursor) {
      cursors = parseJsonOr(Buffer.from(q.cursor, 'base64url').toString('utf8'), null) as typeof cursors // checked next
      if (!cursors || typeof cursors !== 'object' || Array.isArray(cursors))
        throw new CaduceusError('invalid_input', 'invalid cursor', 'cursor')
    }
    const { stores, unavailable, notices } = this.healthy((name) => cursors[name] !== false)
    const pages: Array<{ name: string; page: SessionPage; keys: SortValue[] }> = []
    for (const { profile, store } of stores) {
      try {
        pages.push({
          name: profile,
          ...store.listSessionsKeyed({
            ...q,
            limit,
            cursor: (cursors[profile] as string | null | undefined) ?? null
          })
        })
      } catch (err) {
        if (err instanceof CaduceusError && err.field === 'cursor') throw err
        unavailable.push(this.leftOut(profile, err))
      }
    }
    const entries = pages.flatMap((p) => p.page.items.map((item, i) => ({ p, item, i, key: p.keys[i] })))
    // The default order by the summaries' activity and start; another by the sort values each page's SQL sorted on,
    // so the merge agrees with every profile's own order (and a profile's cursor resumes right after its last row).
    const desc = (q.dir ?? (q.sort === 'title' ? 'asc' : 'desc')) === 'desc'
    const sorted = pages.some((p) => p.keys.length > 0)
    const merged = entries.sort((a, b) => {
      if (!sorted)
        return (
          b.item.lastActiveAt - a.item.lastActiveAt ||
          b.item.startedAt - a.item.startedAt ||
          (a.item.id < b.item.id ? 1 : -1)
        )
      const c = compareSortValues(a.key!, b.key!) || Buffer.compare(Buffer.from(a.item.id), Buffer.from(b.item.id))
      return desc ? -c : c
    })
    const taken = merged.slice(0, limit)
    const next: Record<string, string | null | false> = {}
    let more = false
    for (const { name, page } of pages) {
      const mine = taken.filter((t) => t.p.page === page)
      const all = mine.length === page.items.length
      if (all) next[name] = page.nextCursor ?? false
      else {
        // Resume this profile right after the last item we used from it.
        const lastTaken = mine[mine.length - 1]
        const last = lastTaken?.item as SessionSummary | undefined
        next[name] = last
          ? sorted
            ? sortCursorAfter(q, lastTaken!.key!, last.id)
            : cursorAfter(last)
          : ((cursors[name] as string | null | undefined) ?? null)
      }
      if (next[name] !== false) more = true
    }
    for (const [name, c] of Object.entries(cursors)) if (c === false) next[name] = false
    return {
      items: taken.map((t) => t.item),
      nextCursor: more ? Buffer.from(JSON.stringify(next)).toString('base64url') : null,
      ...problems(unavailable, notices)
    }
  }

  /** Every source the readable profiles' sessions have (read-list.ts sessionSources), sorted. */
  sourcesAll(): string[] {
    const out = new Set<string>()
    for (const { store } of this.healthy(() => true).stores) {
      try {
        for (const s of store.listSources()) out.add(s)
      } catch {
        // an unreadable profile offers none; the list names it
      }
    }
    return [...out].sort()
  }

  /** One profile (`only`) or all: hits newest first, grouped by session, plus who could not be searched. */
  searchAll(q: { query: string; limit?: number; filters?: SearchFilters }, only?: string): SearchResult {
    const limit = Math.max(1, Math.min(200, q.limit ?? 50))
    const { stores, unavailable, notices } = only ? this.one(only) : this.healthy()
    const hits: SearchHit[] = []
    const titles: Array<{ profile: string; sessionId: string; title: string }> = []
    let message: string | undefined
    let fallback: string | undefined
    const counts: Array<{ profile: string; sessions: Map<string, { hits: number; title: string | null }> }> = []
    for (const { profile, store } of stores) {
      try {
        const r = store.searchFull({ query: q.query, limit, filters: q.filters })
        hits.push(...r.hits)
        titles.push(...r.titles)
        counts.push({ profile, sessions: r.sessions })
        message ??= r.message
        fallback ??= r.fallback
      } catch (err) {
        unavailable.push(this.leftOut(profile, err))
      }
    }
    const page = hits.sort((a, b) => b.timestamp - a.timestamp).slice(0, limit)
    const groups = new Map<string, SearchSessionGroup>()
    const key = (p: string, id: string) => `${p}\u0000${id}`
    for (const t of titles)
      groups.set(key(t.profile, t.sessionId), {
        profile: t.profile,
        sessionId: t.sessionId,
        title: t.title,
        hits: 0,
        titleMatch: true
      })
    // every matching session (not just the page's), with its complete number of matching messages
    for (const { profile, sessions } of counts)
      for (const [sessionId, m] of sessions) {
        const g = groups.get(key(profile, sessionId)) ?? {
          profile,
          sessionId,
          title: m.title,
          hits: 0,
          titleMatch: false
        }
        g.hits = m.hits
        groups.set(key(profile, sessionId), g)
      }
    // a profile with too many matches to count reports none: its sessions are grouped from the page's hits
    const capped = new Set(counts.filter((c) => c.sessions.size === 0).map((c) => c.profile))
    for (const h of page) {
      if (!capped.has(h.profile)) continue
      // a chain's segments group under its tip (search.ts byChain)
      const id = h.chainId ?? h.sessionId
      const g = groups.get(key(h.profile, id)) ?? {
        profile: h.profile,
        sessionId: id,
        title: h.chainId ? null : h.sessionTitle,
        hits: 0,
        titleMatch: false
      }
      g.hits++
      groups.set(key(h.profile, id), g)
    }
    return {
      hits: page,
      sessions: [...groups.values()],
      ...(message && page.length === 0 && titles.length === 0 ? { message } : {}),
      ...(fallback ? { fallback } : {}),
      ...problems(unavailable, notices)
    }
  }
}

function cursorAfter(s: SessionSummary): string {
  return Buffer.from(JSON.stringify([s.lastActiveAt, s.startedAt, s.id]), 'utf8').toString('base64url')
}

/** The reason shown for a profile that cannot be served: the SQLite message, without paths or stacks. */
export function problemOf(err: unknown): string {
  // SQLite's own words ("database is locked") left the reader guessing whose lock and for how long
  if (isBusy(err))
    return 'its state.db is locked by another program; shown without it, try again when that program has finished'
  const e = err as { reason?: unknown; message?: unknown }
  return String(typeof e?.reason === 'string' ? e.reason : (e?.message ?? err))
    .split('\n')[0]!
    .slice(0, 300)
}

function problems(
  unavailable: ProfileProblem[],
  notices: ProfileProblem[]
): { unavailable?: ProfileProblem[]; notices?: ProfileProblem[] } {
  return { ...(unavailable.length ? { unavailable } : {}), ...(notices.length ? { notices } : {}) }
}
