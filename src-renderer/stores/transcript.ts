/**
 * The open transcript: which session, and how it is being read. The messages themselves are query data, one window
 * per session (transcript-window.ts); this store keeps the view state around them — the focus, the pages on their
 * way, and the open and view objects a reply checks before it lands.
 */
import { create } from 'zustand'
import type { Message, MessagePage, MessageQuery } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'
import { coalesce, isNotFound, queryClient } from './server'
import { cachedChain, cachedDetail, sessionMetaQueries } from './transcript-meta'
import {
  cachedWindow,
  dropWindow,
  forgetTranscript,
  leaveWindow,
  resetWindow,
  trimWindows,
  updateWindow,
  withMessages,
  type MessageWindow
} from './transcript-window'

interface TranscriptStore {
  profile: string | null
  sessionId: string | null
  /** This open's first page is on its way. */
  loading: boolean
  loadingOlder: boolean
  loadingNewerPage: boolean
  /** Message to scroll to and highlight (search hit). */
  focusId: number | null
  error: string | null
  /** The host says this session does not exist (wrong id, deleted, other profile). */
  notFound: boolean
  /**
   * This open of the transcript (a new one on every open, switch-back included): a reply checks it is still the
   * open one before it lands, so a session left meanwhile drops its late answers. It owns the live "newer" pass.
   */
  open: Open | null
  /** The loaded window (a new one when Home or End replaces what is loaded): a page asked for before belongs to the old one. */
  view: View | null
}

interface Open {
  profile: string
  sessionId: string
  /** Append what came after the last loaded message; a burst of calls is one pass (plus one while it runs). */
  newer: () => Promise<void>
}
interface View {
  anchor: 'latest' | 'focus' | 'start'
}

export const TRANSCRIPT_PAGE = 200
/**
 * The newest window an open starts with: a few screens, so the host reads and sends (and the renderer parses)
 * a quarter of a full page before the first paint; older pages follow as the reader scrolls up.
 */
const FIRST_PAGE = 60
/** "Before the newest possible id": asks the store for the latest page. */
const LATEST = Number.MAX_SAFE_INTEGER

const initial = (): TranscriptStore => ({
  profile: null,
  sessionId: null,
  loading: false,
  loadingOlder: false,
  loadingNewerPage: false,
  focusId: null,
  error: null,
  notFound: false,
  open: null,
  view: null
})

export const useTranscript = create<TranscriptStore>()(() => initial())

/** The open transcript's window (undefined until its first page is in). */
export function openWindow(): MessageWindow | undefined {
  const { open } = useTranscript.getState()
  return open ? cachedWindow(open.profile, open.sessionId) : undefined
}

/** Is this open of the transcript still the open one? */
const isOpen = (open: Open | null) => open != null && useTranscript.getState().open === open

const write = (open: Open, fn: (w: MessageWindow) => Partial<MessageWindow>) =>
  updateWindow(open.profile, open.sessionId, fn)

const read = (query: MessageQuery) => getApi().call('sessions.messages', query)

/**
 * A page of one of the open conversation's segments: an earlier segment is read as part of the chain, without the
 * rows the segment after it carries copies of (its kept tail, shown after that segment's summary), so each message
 * shows once.
 */
function readSegment(open: Open, sessionId: string, page: Omit<MessageQuery, 'profile' | 'sessionId' | 'carriedBy'>) {
  const segments = segmentsOf(open)
  const next = sessionId === open.sessionId ? undefined : segments[segments.indexOf(sessionId) + 1]
  return read({ profile: open.profile, sessionId, ...page, ...(next ? { carriedBy: next } : {}) })
}

/** Leaving a transcript: its window stays for switching back, unless there is nothing (or nobody) to come back to. */
function leave(st: TranscriptStore): void {
  if (!st.open) return
  const { profile, sessionId } = st.open
  // gone since it opened (its details' last read said so)
  const gone =
    st.notFound || isNotFound(queryClient.getQueryState(sessionMetaQueries(profile, sessionId).detail.queryKey)?.error)
  if (gone) forgetTranscript(profile, sessionId)
  else if (st.loading || !cachedWindow(profile, sessionId)?.ids.length) dropWindow(profile, sessionId)
  else leaveWindow(profile, sessionId)
}

/** Can the window show this open at once: the newest messages, or the search hit? */
const fits = (w: MessageWindow | undefined, focusId: number | null): w is MessageWindow =>
  !!w?.ids.length && (focusId == null ? !w.hasMoreAfter : !!w.byId[focusId])

export async function openTranscript(profile: string, sessionId: string, focusId: number | null = null): Promise<void> {
  const st = useTranscript.getState()
  const same = st.profile === profile && st.sessionId === sessionId
  const held = cachedWindow(profile, sessionId)
  if (same && fits(held, focusId)) return void useTranscript.setState({ focusId })
  // already on its way (opened as the URL changed, before the page mounted)
  if (same && st.loading && st.focusId === focusId) return
  // the same session opened anew (a search hit outside the window, or its newest after Home) replaces its window
  if (!same) leave(st)
  trimWindows(profile, sessionId)
  const open: Open = { profile, sessionId, newer: coalesce(() => readNewer(open)) }
  const view: View = { anchor: focusId == null ? 'latest' : 'focus' }
  if (fits(held, focusId)) {
    // switching back: shown at once from the cache, then caught up — details first (a deleted session turns into
    // "not found" without an error toast), then whatever was appended while it was not open
    useTranscript.setState({ ...initial(), profile, sessionId, focusId, open, view })
    await readChain(open)
    if (isOpen(open) && !useTranscript.getState().notFound && !openWindow()?.hasMoreAfter) await loadNewer()
    return
  }
  useTranscript.setState({ ...initial(), profile, sessionId, focusId, open, view, loading: true })
  resetWindow(profile, sessionId)
  // The page goes first (the host answers in order and the rows are the most work to paint), the details
  // (title, lineage, cost) right behind it rather than after it: one round trip less to a painted header.
  const pageCall = read(
    focusId != null
      ? { profile, sessionId, aroundId: focusId, limit: TRANSCRIPT_PAGE }
      : { profile, sessionId, beforeId: LATEST, limit: FIRST_PAGE }
  )
  const chain = readChain(open)
  try {
    const page = await pageCall
    if (!isOpen(open)) return
    write(open, (w) => ({
      ...withMessages(w, page.items),
      hasMoreBefore: page.hasMoreBefore,
      hasMoreAfter: page.hasMoreAfter,
      // the details may have answered first
      ...chainOf(open, cachedDetail(profile, sessionId))
    }))
    useTranscript.setState({ loading: false })
  } catch (err) {
    if (!isOpen(open)) return
    // A missing session is a screen of its own, not an error toast (and not a second one from the details call).
    if (isNotFound(err)) return void useTranscript.setState({ loading: false, notFound: true })
    write(open, () => ({}))
    useTranscript.setState({ loading: false, error: reportError(err, 'Loading transcript') })
  }
  await chain
}

/** What the session's details say of its chain: the earlier segments "load older" continues into. */
function chainOf(open: Open, detail: { lineage: { chain: { id: string }[] } } | null): Partial<MessageWindow> {
  if (!detail) return {}
  const chain = detail.lineage.chain.map((r) => r.id)
  return { chainKnown: true, olderSegments: olderSegmentsOf(chain, open.sessionId) }
}

/**
 * The open session's chain, when its first read failed: from the details the page just read again, or read now.
 * (After a reconnect every query on screen is read again already: this is all the transcript adds.)
 */
export async function learnChain(): Promise<void> {
  const { open } = useTranscript.getState()
  const w = openWindow()
  if (open && w && !w.chainKnown) await readChain(open, false)
}

/**
 * The open session's details, read now (the page's own query shares the fetch): a session gone meanwhile turns
 * into "not found"; the first read of its chain says which earlier segments "load older" continues into (once the
 * first page is in: that page takes it from the cache if the details answer first).
 */
async function readChain(open: Open, fresh = true): Promise<void> {
  if (!isOpen(open)) return
  try {
    const query = sessionMetaQueries(open.profile, open.sessionId).detail
    const detail = await (fresh ? queryClient.fetchQuery(query) : queryClient.ensureQueryData(query))
    const w = cachedWindow(open.profile, open.sessionId)
    if (!isOpen(open) || !w || w.chainKnown) return
    write(open, () => chainOf(open, detail))
  } catch (err) {
    // other failures have toasted (the query cache) and leave the transcript as it is
    if (isOpen(open) && isNotFound(err)) useTranscript.setState({ notFound: true })
  }
}

const olderSegmentsOf = (chain: string[], sessionId: string) => {
  const i = chain.indexOf(sessionId)
  return i > 0 ? chain.slice(0, i) : []
}

/** Is there anything older to load: this segment's earlier pages, or an earlier segment of the chain? */
export const canLoadOlder = (w: MessageWindow | undefined, focusId: number | null) =>
  !!w && (w.hasMoreBefore || (w.olderSegments.length > 0 && focusId == null))

export async function loadOlder(): Promise<number> {
  const { open, view, focusId, loadingOlder } = useTranscript.getState()
  const w = openWindow()
  if (!open || !w?.ids.length || !canLoadOlder(w, focusId) || loadingOlder) return 0
  // this segment is read to its start: continue with the previous segment's newest page
  const next = w.hasMoreBefore ? null : w.olderSegments[w.olderSegments.length - 1]!
  useTranscript.setState({ loadingOlder: true })
  try {
    const page = await (next
      ? readSegment(open, next, { beforeId: LATEST, limit: TRANSCRIPT_PAGE })
      : readSegment(open, w.pagingSession, { beforeId: w.ids[0], limit: TRANSCRIPT_PAGE }))
    if (!isOpen(open)) return 0
    if (useTranscript.getState().view !== view) {
      useTranscript.setState({ loadingOlder: false })
      return 0
    }
    write(open, (now) => ({
      ...withMessages(now, page.items),
      hasMoreBefore: page.hasMoreBefore,
      ...(next ? { pagingSession: next, olderSegments: now.olderSegments.slice(0, -1) } : {})
    }))
    useTranscript.setState({ loadingOlder: false })
    return page.items.length
  } catch (err) {
    if (!isOpen(open)) return 0
    useTranscript.setState({ loadingOlder: false })
    reportError(err, 'Loading older messages')
    return 0
  }
}

/** Append everything after the last loaded message (live updates); overlapping calls collapse into one more pass. */
export function loadNewer(): Promise<void> {
  return useTranscript.getState().open?.newer() ?? Promise.resolve()
}

/** The open session's messages the window holds from `since` through `last`: what the host's `held` counts. */
function heldOf(w: MessageWindow, sessionId: string, since: number, last: number): NonNullable<MessagePage['held']> {
  let visible = 0
  let compacted = 0
  for (const id of w.ids) {
    const m = w.byId[id]!
    if (id < since || id > last || m.sessionId !== sessionId) continue
    visible++
    if (m.compacted) compacted++
  }
  return { visible, compacted }
}

/** The session's visible messages from `since` on, through at least `last` (pages of the contract's largest size). */
async function readRange(open: Open, since: number, last: number): Promise<Message[]> {
  const items: Message[] = []
  let after = since - 1
  for (let guard = 0; guard < 100; guard++) {
    const page = await read({ profile: open.profile, sessionId: open.sessionId, afterId: after, limit: 1000 })
    items.push(...page.items)
    const end = page.items.at(-1)?.id
    if (end == null || end >= last || !page.hasMoreAfter) break
    after = end
  }
  return items
}

async function readNewer(open: Open): Promise<void> {
  try {
    for (let guard = 0; guard < 50; guard++) {
      if (!isOpen(open)) return
      const { view } = useTranscript.getState()
      const held = cachedWindow(open.profile, open.sessionId)
      const last = held?.ids.at(-1)
      const { profile, sessionId } = open
      // the first of this session's messages the window holds: the host counts what it shows from there to `last`
      const since = held?.ids.find((id) => held.byId[id]?.sessionId === sessionId)
      const page = await read(
        last != null
          ? { profile, sessionId, afterId: last, limit: TRANSCRIPT_PAGE, ...(since != null ? { sinceId: since } : {}) }
          : { profile, sessionId, beforeId: LATEST, limit: TRANSCRIPT_PAGE }
      )
      // Home or End replaced the window meanwhile (a new view; or the window lacks the id this page continues
      // from, as when Home's page landed first): this page does not continue it
      const now = cachedWindow(profile, sessionId)
      if (!isOpen(open) || useTranscript.getState().view !== view || (last != null && !now?.byId[last])) return
      if (page.held && since != null && last != null && !sameHeld(heldOf(now!, sessionId, since, last), page.held)) {
        // another program rewound or compacted what the window shows (upstream's rewind leaves those rows inactive,
        // its compaction flags them): the loaded range is read again and replaces this session's part of it
        if (!(await rereadRange(open, view, since, last))) return
        continue
      }
      // an empty page after our last id means we are at the end, whatever the flag says
      const moreAfter = page.items.length ? page.hasMoreAfter : false
      write(open, (w) => ({
        ...withMessages(w, page.items),
        hasMoreAfter: moreAfter,
        ...(last == null ? { hasMoreBefore: page.hasMoreBefore } : {})
      }))
      if (!page.hasMoreAfter || !page.items.length) break
    }
  } catch (err) {
    if (isOpen(open)) reportError(err, 'Loading new messages')
  }
}

/** Reads `since`..`last` of the open session again and puts it in place of what the window held; false: left. */
async function rereadRange(open: Open, view: View | null, since: number, last: number): Promise<boolean> {
  const { sessionId } = open
  const fresh = await readRange(open, since, last)
  if (!isOpen(open) || useTranscript.getState().view !== view) return false
  write(open, (w) => {
    const ids = w.ids.filter((id) => id < since || w.byId[id]?.sessionId !== sessionId)
    const byId: Record<number, Message> = {}
    for (const id of ids) byId[id] = w.byId[id]!
    return withMessages({ byId, ids }, fresh)
  })
  return true
}

/**
 * The open profile's state.db was replaced (a backup restored over it) or deleted: the rows the window holds may read
 * differently under the same ids (a restored file reuses the ids of the rows it rolled back), which no count
 * tells. Its loaded range is read again, then what came after it.
 */
export async function rereadWindow(): Promise<void> {
  const { open, view } = useTranscript.getState()
  if (!open) return
  const held = cachedWindow(open.profile, open.sessionId)
  const since = held?.ids.find((id) => held.byId[id]?.sessionId === open.sessionId)
  const last = held?.ids.at(-1)
  try {
    if (since != null && last != null && !(await rereadRange(open, view, since, last))) return
  } catch (err) {
    if (isOpen(open)) reportError(err, 'Reading the transcript again')
    return
  }
  await loadNewer()
}

const sameHeld = (a: NonNullable<MessagePage['held']>, b: NonNullable<MessagePage['held']>) =>
  a.visible === b.visible && a.compacted === b.compacted

/** The open conversation's segments, root first (just the open session when it is not a chain). */
const segmentsOf = ({ profile, sessionId }: Open): string[] => {
  const chain = cachedChain(profile, sessionId)
  return chain.includes(sessionId) ? chain.slice(0, chain.indexOf(sessionId) + 1) : [sessionId]
}

/** A page that replaces the loaded window (Home, End): what loaded before and the pages on their way are dropped. */
function replaceWindow(open: Open, fields: Partial<MessageWindow>): void {
  write(open, () => fields)
  useTranscript.setState({ loadingOlder: false, loadingNewerPage: false, focusId: null })
}

/**
 * Home: the conversation's first page, read straight from its start (`afterId: 0` on the chain's root), not
 * paged back to it 200 at a time. What was loaded is replaced; newer pages follow as the reader scrolls down,
 * and End goes back to the newest. Resolves to the first message's id (null: nothing, or another session now).
 */
export async function jumpToStart(): Promise<number | null> {
  const { open, loading, focusId } = useTranscript.getState()
  const w = openWindow()
  if (!open || loading || !w) return null
  if (!canLoadOlder(w, focusId) && focusId == null) return w.ids[0] ?? null
  const view: View = { anchor: 'start' }
  useTranscript.setState({ view })
  const first = segmentsOf(open)[0]!
  // a few screens, as an open reads: less to read, send and lay out before the first message shows
  const page = await readSegment(open, first, { afterId: 0, limit: FIRST_PAGE })
  if (!isOpen(open) || useTranscript.getState().view !== view) return null
  replaceWindow(open, {
    ...withMessages({ byId: {}, ids: [] }, page.items),
    hasMoreBefore: false,
    olderSegments: [],
    pagingSession: first,
    forwardSession: first,
    hasMoreAfter: page.hasMoreAfter || first !== open.sessionId
  })
  return page.items[0]?.id ?? null
}

/**
 * End: the newest page again when it is not loaded (after Home or a search hit). Resolves to the newest message's id
 * when it replaced the window (null: nothing to replace, or another session now).
 */
export async function jumpToEnd(): Promise<number | null> {
  const { open, loading } = useTranscript.getState()
  if (!open || loading || !openWindow()?.hasMoreAfter) return null
  const view: View = { anchor: 'latest' }
  useTranscript.setState({ view })
  const page = await read({ profile: open.profile, sessionId: open.sessionId, beforeId: LATEST, limit: FIRST_PAGE })
  if (!isOpen(open) || useTranscript.getState().view !== view) return null
  replaceWindow(open, {
    ...withMessages({ byId: {}, ids: [] }, page.items),
    hasMoreBefore: page.hasMoreBefore,
    hasMoreAfter: false,
    olderSegments: olderSegmentsOf(segmentsOf(open), open.sessionId),
    pagingSession: open.sessionId,
    forwardSession: open.sessionId
  })
  return page.items.at(-1)?.id ?? null
}

/** Scrolling down while the newest messages are not loaded: the next page, continuing into later segments. */
export async function loadNewerPage(): Promise<void> {
  const { open, view, loadingNewerPage } = useTranscript.getState()
  const w = openWindow()
  if (!open || !w?.hasMoreAfter || loadingNewerPage || !w.ids.length) return
  const segments = segmentsOf(open)
  const from = w.forwardSession
  useTranscript.setState({ loadingNewerPage: true })
  try {
    let page = await readSegment(open, from, { afterId: w.ids[w.ids.length - 1]!, limit: TRANSCRIPT_PAGE })
    let at = from
    // this segment is read to its end: the next segment's first page
    if (!page.items.length && from !== open.sessionId) {
      at = segments[segments.indexOf(from) + 1] ?? open.sessionId
      page = await readSegment(open, at, { afterId: 0, limit: TRANSCRIPT_PAGE })
    }
    if (!isOpen(open)) return
    if (useTranscript.getState().view !== view) return void useTranscript.setState({ loadingNewerPage: false })
    write(open, (now) => ({
      ...withMessages(now, page.items),
      forwardSession: at,
      hasMoreAfter: page.hasMoreAfter || at !== open.sessionId
    }))
    useTranscript.setState({ loadingNewerPage: false })
  } catch (err) {
    if (!isOpen(open)) return
    useTranscript.setState({ loadingNewerPage: false })
    reportError(err, 'Loading newer messages')
  }
}
