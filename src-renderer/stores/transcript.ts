import { create } from 'zustand'
import type { EventPayload, Message } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'
import { coalesce, isNotFound, queryClient } from './server'
import {
  cachedChain,
  cachedDetail,
  dropSessionMeta,
  holdSessionMeta,
  invalidateSessionMeta,
  sessionMetaQueries
} from './transcript-meta'

interface TranscriptStore {
  profile: string | null
  sessionId: string | null
  byId: Record<number, Message>
  /** Message ids, ascending. */
  ids: number[]
  hasMoreBefore: boolean
  hasMoreAfter: boolean
  loading: boolean
  loadingOlder: boolean
  /** Message to scroll to and highlight (search hit). */
  focusId: number | null
  /**
   * The session's compression chain has been read (its details are queries: transcript-meta.ts): `olderSegments`
   * is set from it once, on the first read, and then follows the paging.
   */
  chainKnown: boolean
  error: string | null
  /** The host says this session does not exist (wrong id, deleted, other profile). */
  notFound: boolean
  /**
   * Earlier segments of this session's compression chain (root first) not loaded yet: the chain reads as one
   * conversation, "load older" continues into them once this segment's start is reached.
   */
  olderSegments: string[]
  /** The segment the "older" pages currently come from (the open session until its start is reached). */
  pagingSession: string | null
  /**
   * While the newest messages are not loaded (`hasMoreAfter`: after Home or a search hit), the segment the next
   * "newer" page comes from; the chain's later segments follow it, up to the open session.
   */
  forwardSession: string | null
  loadingNewerPage: boolean
  /**
   * This open of the transcript (a new one on every open, switch-back included): a reply checks it is still the
   * open one before it lands, so a session left meanwhile drops its late answers. It owns the live "newer" pass.
   */
  open: Open | null
  /** The loaded window (a new one when Home or End replaces what is loaded): a page asked for before belongs to the old one. */
  view: TranscriptWindow | null
}

interface Open {
  /** Append what came after the last loaded message; a burst of calls is one pass (plus one while it runs). */
  newer: () => Promise<void>
}
interface TranscriptWindow {
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
  byId: {},
  ids: [],
  hasMoreBefore: false,
  hasMoreAfter: false,
  loading: false,
  loadingOlder: false,
  focusId: null,
  chainKnown: false,
  error: null,
  notFound: false,
  olderSegments: [],
  pagingSession: null,
  forwardSession: null,
  loadingNewerPage: false,
  open: null,
  view: null
})

export const useTranscript = create<TranscriptStore>()(() => initial())

/** What a transcript that was open keeps for switching back: everything loaded, not the view state. */
type Kept = Pick<
  TranscriptStore,
  | 'byId'
  | 'ids'
  | 'hasMoreBefore'
  | 'hasMoreAfter'
  | 'chainKnown'
  | 'olderSegments'
  | 'pagingSession'
  | 'forwardSession'
>

/**
 * The last few transcripts left, most recent last: switching back shows one at once (no round trip, no
 * re-render from scratch), then reconciles with the host, which may have appended to it meanwhile.
 */
const recent = new Map<string, Kept & { release: () => void }>()
const RECENT_MAX = 4
const keyOf = (profile: string, sessionId: string) => `${profile}\u0000${sessionId}`

/** Out of the switch-back cache, its details no longer held there. */
function unkeep(key: string): (Kept & { release: () => void }) | undefined {
  const kept = recent.get(key)
  kept?.release()
  recent.delete(key)
  return kept
}

function keep(st: TranscriptStore): void {
  if (!st.profile || !st.sessionId || st.notFound || st.loading || !st.ids.length) return
  // gone since it opened (its details' last read said so): nothing to come back to
  if (isNotFound(queryClient.getQueryState(sessionMetaQueries(st.profile, st.sessionId).detail.queryKey)?.error)) return
  const key = keyOf(st.profile, st.sessionId)
  unkeep(key)
  recent.set(key, {
    release: holdSessionMeta(st.profile, st.sessionId),
    byId: st.byId,
    ids: st.ids,
    hasMoreBefore: st.hasMoreBefore,
    hasMoreAfter: st.hasMoreAfter,
    chainKnown: st.chainKnown,
    olderSegments: st.olderSegments,
    pagingSession: st.pagingSession,
    forwardSession: st.forwardSession
  })
  if (recent.size > RECENT_MAX) unkeep(recent.keys().next().value!)
}

/** A session that is gone (deleted) must not come back from the switch-back cache. */
export function forgetTranscript(profile: string, sessionId: string): void {
  unkeep(keyOf(profile, sessionId))
  dropSessionMeta(profile, sessionId)
}

function merge(st: TranscriptStore, items: Message[]): Pick<TranscriptStore, 'byId' | 'ids'> {
  const byId = { ...st.byId }
  let added = false
  for (const m of items) {
    if (!byId[m.id]) added = true
    byId[m.id] = m
  }
  const ids = added
    ? Object.keys(byId)
        .map(Number)
        .sort((a, b) => a - b)
    : st.ids
  return { byId, ids }
}

export async function openTranscript(profile: string, sessionId: string, focusId: number | null = null): Promise<void> {
  const st = useTranscript.getState()
  if (
    st.profile === profile &&
    st.sessionId === sessionId &&
    st.ids.length &&
    (focusId == null ? !st.hasMoreAfter : st.byId[focusId])
  ) {
    useTranscript.setState({ focusId })
    return
  }
  // already on its way (opened as the URL changed, before the page mounted)
  if (st.profile === profile && st.sessionId === sessionId && st.loading && st.focusId === focusId) return
  keep(st)
  const open: Open = { newer: coalesce(() => readNewer(open)) }
  const view: TranscriptWindow = { anchor: focusId == null ? 'latest' : 'focus' }
  const held = recent.get(keyOf(profile, sessionId))
  if (held && (focusId == null ? !held.hasMoreAfter : held.byId[focusId])) {
    const { release: _release, ...kept } = unkeep(keyOf(profile, sessionId))!
    useTranscript.setState({ ...initial(), ...kept, profile, sessionId, focusId, open, view })
    // then catch up: details first (a deleted session turns into "not found" without an error toast), then
    // whatever was appended while it was not open
    await readChain(open)
    const now = useTranscript.getState()
    if (now.open === open && !now.notFound && !now.hasMoreAfter) await loadNewer()
    return
  }
  useTranscript.setState({
    ...initial(),
    profile,
    sessionId,
    focusId,
    open,
    view,
    loading: true,
    pagingSession: sessionId,
    forwardSession: sessionId
  })
  const api = getApi()
  const query =
    focusId != null
      ? { profile, sessionId, aroundId: focusId, limit: TRANSCRIPT_PAGE }
      : { profile, sessionId, beforeId: LATEST, limit: FIRST_PAGE }
  // The page goes first (the host answers in order and the rows are the most work to paint), the details
  // (title, lineage, cost) right behind it rather than after it: one round trip less to a painted header.
  const pageCall = api.call('sessions.messages', query)
  const chain = readChain(open)
  try {
    const page = await pageCall
    if (!isOpen(open)) return
    useTranscript.setState((s) => ({
      ...merge(s, page.items),
      hasMoreBefore: page.hasMoreBefore,
      hasMoreAfter: page.hasMoreAfter,
      loading: false
    }))
  } catch (err) {
    if (!isOpen(open)) return
    // A missing session is a screen of its own, not an error toast (and not a second one from the details call).
    if (isNotFound(err)) return void useTranscript.setState({ loading: false, notFound: true })
    useTranscript.setState({ loading: false, error: reportError(err, 'Loading transcript') })
  }
  await chain
}

/**
 * Re-read the open session's details that are on screen — lineage, usage, cost split, chain costs, subagents —
 * once per burst (transcript-meta.ts); and its chain, if the first read of it failed.
 */
export async function refreshTranscriptMeta(): Promise<void> {
  const { profile, sessionId } = useTranscript.getState()
  if (!profile || !sessionId) return
  const chain = cachedChain(profile, sessionId)
  await invalidateSessionMeta(profile, chain.includes(sessionId) ? chain : [sessionId])
  await learnChain()
}

/**
 * The open session's chain, when its first read failed: from the details the page just read again, or read now.
 * (After a reconnect every query on screen is read again already: this is all the transcript adds.)
 */
export async function learnChain(): Promise<void> {
  const { open, chainKnown } = useTranscript.getState()
  if (!chainKnown && isOpen(open)) await readChain(open!, false)
}

/**
 * The open session's details, read now (the page's own query shares the fetch): a session gone meanwhile turns
 * into "not found"; the first read of its chain says which earlier segments "load older" continues into.
 */
async function readChain(open: Open, fresh = true): Promise<void> {
  const { profile, sessionId } = useTranscript.getState()
  if (!profile || !sessionId || !isOpen(open)) return
  try {
    const query = sessionMetaQueries(profile, sessionId).detail
    const detail = await (fresh ? queryClient.fetchQuery(query) : queryClient.ensureQueryData(query))
    if (!isOpen(open) || useTranscript.getState().chainKnown) return
    useTranscript.setState({
      chainKnown: true,
      olderSegments: olderSegmentsOf(
        detail.lineage.chain.map((r) => r.id),
        sessionId
      )
    })
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
export const canLoadOlder = (s: Pick<TranscriptStore, 'hasMoreBefore' | 'olderSegments' | 'focusId'>) =>
  s.hasMoreBefore || (s.olderSegments.length > 0 && s.focusId == null)

export async function loadOlder(): Promise<number> {
  const st = useTranscript.getState()
  if (!st.profile || !st.sessionId || !canLoadOlder(st) || st.loadingOlder || !st.ids.length) return 0
  const { open, view } = st
  // this segment is read to its start: continue with the previous segment's newest page
  const next = st.hasMoreBefore ? null : st.olderSegments[st.olderSegments.length - 1]!
  const from = next ?? st.pagingSession ?? st.sessionId
  useTranscript.setState({ loadingOlder: true })
  try {
    const page = await getApi().call(
      'sessions.messages',
      next
        ? { profile: st.profile, sessionId: next, beforeId: LATEST, limit: TRANSCRIPT_PAGE }
        : { profile: st.profile, sessionId: from, beforeId: st.ids[0], limit: TRANSCRIPT_PAGE }
    )
    if (!isOpen(open)) return 0
    if (useTranscript.getState().view !== view) {
      useTranscript.setState({ loadingOlder: false })
      return 0
    }
    useTranscript.setState((s) => ({
      ...merge(s, page.items),
      hasMoreBefore: page.hasMoreBefore,
      loadingOlder: false,
      ...(next ? { pagingSession: next, olderSegments: s.olderSegments.slice(0, -1) } : {})
    }))
    return page.items.length
  } catch (err) {
    if (!isOpen(open)) return 0
    useTranscript.setState({ loadingOlder: false })
    reportError(err, 'Loading older messages')
    return 0
  }
}

/** Is this open of the transcript still the open one? */
const isOpen = (open: Open | null) => open != null && useTranscript.getState().open === open

/** Append everything after the last loaded message (live updates); overlapping calls collapse into one more pass. */
export function loadNewer(): Promise<void> {
  return useTranscript.getState().open?.newer() ?? Promise.resolve()
}

async function readNewer(open: Open): Promise<void> {
  try {
    for (let guard = 0; guard < 50; guard++) {
      const st = useTranscript.getState()
      if (!st.profile || !st.sessionId || !isOpen(open)) return
      const last = st.ids[st.ids.length - 1]
      const page = await getApi().call(
        'sessions.messages',
        last != null
          ? { profile: st.profile, sessionId: st.sessionId, afterId: last, limit: TRANSCRIPT_PAGE }
          : { profile: st.profile, sessionId: st.sessionId, beforeId: LATEST, limit: TRANSCRIPT_PAGE }
      )
      if (!isOpen(open)) return
      // an empty page after our last id means we are at the end, whatever the flag says
      const moreAfter = page.items.length ? page.hasMoreAfter : false
      useTranscript.setState((s) => ({
        ...merge(s, page.items),
        hasMoreAfter: moreAfter,
        ...(last == null ? { hasMoreBefore: page.hasMoreBefore } : {})
      }))
      if (!page.hasMoreAfter || !page.items.length) break
    }
  } catch (err) {
    if (isOpen(open)) reportError(err, 'Loading new messages')
  }
}

/** The open transcript's session and its compression chain (as last read), when it is of `profile`. */
function openIds(profile: string): string[] | null {
  const st = useTranscript.getState()
  if (!st.sessionId || st.profile !== profile) return null
  return [st.sessionId, ...cachedChain(profile, st.sessionId)]
}

/** Ids whose change concerns the open transcript: itself and its compression chain. */
function concernsOpen(profile: string, ids: string[]): boolean {
  const own = openIds(profile)
  if (!own) return false
  return ids.length === 0 || own.some((id) => ids.includes(id))
}

/**
 * Changes that concern the open session's details only: a delegate child of it (or of a chain segment) — one the
 * details already list, or a new one the event names by its parent (`parentIds`: another process's delegate
 * starting, saving messages, adding cost, ending; no delegation event says so).
 */
function concernsChildren(profile: string, evt: EventPayload<'sessions.changed'>): boolean {
  const own = openIds(profile)
  if (!own) return false
  if (evt.parentIds?.some((id) => own.includes(id))) return true
  const detail = cachedDetail(profile, useTranscript.getState().sessionId!)
  return !!detail?.lineage.delegateChildren.some((r) => evt.sessionIds.includes(r.id))
}

export async function applyTranscriptSessionsChanged(evt: EventPayload<'sessions.changed'>): Promise<void> {
  if (concernsOpen(evt.profile, evt.sessionIds)) {
    // Viewing the middle of a long transcript (search hit): don't drag in everything after it.
    if (!useTranscript.getState().hasMoreAfter) await loadNewer()
  } else if (!concernsChildren(evt.profile, evt)) return
  await refreshTranscriptMeta()
}

export async function applyTranscriptDelegationUpdated(evt: EventPayload<'delegation.updated'>): Promise<void> {
  const st = useTranscript.getState()
  if (st.profile !== evt.profile || !st.sessionId || evt.parentSessionId !== st.sessionId) return
  await refreshTranscriptMeta()
}

/** The open conversation's segments, root first (just the open session when it is not a chain). */
const segmentsOf = (st: TranscriptStore): string[] => {
  const chain = cachedChain(st.profile!, st.sessionId!)
  return chain.includes(st.sessionId!) ? chain.slice(0, chain.indexOf(st.sessionId!) + 1) : [st.sessionId!]
}

/**
 * Home: the conversation's first page, read straight from its start (`afterId: 0` on the chain's root), not
 * paged back to it 200 at a time. What was loaded is replaced; newer pages follow as the reader scrolls down,
 * and End goes back to the newest. Resolves to the first message's id (null: nothing, or another session now).
 */
export async function jumpToStart(): Promise<number | null> {
  const st = useTranscript.getState()
  if (!st.profile || !st.sessionId || st.loading) return null
  if (!canLoadOlder(st) && st.focusId == null) return st.ids[0] ?? null
  const { open } = st
  const view: TranscriptWindow = { anchor: 'start' }
  useTranscript.setState({ view })
  const first = segmentsOf(st)[0]!
  const page = await getApi().call('sessions.messages', {
    profile: st.profile,
    sessionId: first,
    afterId: 0,
    // a few screens, as an open reads: less to read, send and lay out before the first message shows
    limit: FIRST_PAGE
  })
  if (!isOpen(open) || useTranscript.getState().view !== view) return null
  useTranscript.setState((s) => ({
    ...merge({ ...s, byId: {}, ids: [] }, page.items),
    loadingOlder: false,
    loadingNewerPage: false,
    hasMoreBefore: false,
    olderSegments: [],
    pagingSession: first,
    forwardSession: first,
    hasMoreAfter: page.hasMoreAfter || first !== s.sessionId,
    focusId: null
  }))
  return page.items[0]?.id ?? null
}

/** End: the newest page again when it is not loaded (after Home or a search hit). */
export async function jumpToEnd(): Promise<void> {
  const st = useTranscript.getState()
  if (!st.profile || !st.sessionId || st.loading || !st.hasMoreAfter) return
  const { open } = st
  const view: TranscriptWindow = { anchor: 'latest' }
  useTranscript.setState({ view })
  const page = await getApi().call('sessions.messages', {
    profile: st.profile,
    sessionId: st.sessionId,
    beforeId: LATEST,
    limit: FIRST_PAGE
  })
  if (!isOpen(open) || useTranscript.getState().view !== view) return
  useTranscript.setState((s) => ({
    ...merge({ ...s, byId: {}, ids: [] }, page.items),
    loadingOlder: false,
    loadingNewerPage: false,
    hasMoreBefore: page.hasMoreBefore,
    hasMoreAfter: false,
    olderSegments: olderSegmentsOf(segmentsOf(s), s.sessionId!),
    pagingSession: s.sessionId,
    forwardSession: s.sessionId,
    focusId: null
  }))
}

/** Scrolling down while the newest messages are not loaded: the next page, continuing into later segments. */
export async function loadNewerPage(): Promise<void> {
  const st = useTranscript.getState()
  if (!st.profile || !st.sessionId || !st.hasMoreAfter || st.loadingNewerPage || !st.ids.length) return
  const { open, view } = st
  const segments = segmentsOf(st)
  const from = st.forwardSession ?? st.sessionId
  useTranscript.setState({ loadingNewerPage: true })
  try {
    let page = await getApi().call('sessions.messages', {
      profile: st.profile,
      sessionId: from,
      afterId: st.ids[st.ids.length - 1]!,
      limit: TRANSCRIPT_PAGE
    })
    let at = from
    // this segment is read to its end: the next segment's first page
    if (!page.items.length && from !== st.sessionId) {
      at = segments[segments.indexOf(from) + 1] ?? st.sessionId
      page = await getApi().call('sessions.messages', {
        profile: st.profile,
        sessionId: at,
        afterId: 0,
        limit: TRANSCRIPT_PAGE
      })
    }
    if (!isOpen(open)) return
    if (useTranscript.getState().view !== view) return void useTranscript.setState({ loadingNewerPage: false })
    useTranscript.setState((s) => ({
      ...merge(s, page.items),
      forwardSession: at,
      hasMoreAfter: page.hasMoreAfter || at !== s.sessionId,
      loadingNewerPage: false
    }))
  } catch (err) {
    if (!isOpen(open)) return
    useTranscript.setState({ loadingNewerPage: false })
    reportError(err, 'Loading newer messages')
  }
}
