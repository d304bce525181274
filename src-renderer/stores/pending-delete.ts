import { create } from 'zustand'
import { MAX_BULK_SESSIONS, type CallResult } from '@shared/contract'
import { callWhileLeaving, getApi, leavingBudget, leavingBytes, type LeavingBudget } from '../api'
import { bulkSummary } from '../lib/bulk-summary'
import { sendBulk } from './bulk-actions'
import { dropRows, hideSessions, refreshSearch, reloadSessions, sessionKey } from './sessions'
import { pushToast, reportError } from './toasts'
import { forgetTranscript } from './transcript-window'
import { parseJsonOr } from '@shared/contract/errors'

/** How long "Undo" is offered before the delete is sent: the delete itself cannot be undone. */
export const UNDO_MS = 8000

interface Ref {
  profile: string
  sessionId: string
}
interface Pending {
  items: Ref[]
  /** What the undo bar names: `“Title”` or `5 sessions`. */
  label: string
  at: number
  /** The undo window: when it runs out the delete is sent. */
  timer: ReturnType<typeof setTimeout>
}
export const usePendingDelete = create<{ pending: Pending | null }>()(() => ({ pending: null }))

const keysOf = (items: Ref[]) => items.map((r) => sessionKey(r.profile, r.sessionId))

async function commit(p: Pending): Promise<void> {
  clearTimeout(p.timer)
  if (usePendingDelete.getState().pending === p) usePendingDelete.setState({ pending: null })
  // a kept transcript of a deleted session must not paint again from the cache
  for (const r of p.items) forgetTranscript(r.profile, r.sessionId)
  try {
    if (p.items.length === 1) {
      const [{ profile, sessionId }] = p.items as [Ref]
      try {
        await getApi().call('sessions.delete', { profile, sessionId })
      } catch (err) {
        reportError(err, 'Deleting session')
        void reloadSessions() // answers after `finally` has unhidden the row
        void refreshSearch()
      }
      return
    }
    // a batch: each session succeeds or fails on its own; failures come back into the list
    const results = await sendBulk('delete', p.items)
    const { kind, message } = bulkSummary('delete', results)
    pushToast(kind, message)
    if (results.some((r) => !r.ok)) {
      void reloadSessions()
      void refreshSearch()
    }
  } finally {
    hideSessions(keysOf(p.items), false)
  }
}

/** Hide the rows now, delete after the undo window (a second delete first commits the earlier one). */
export function deleteManyWithUndo(items: Ref[], label: string): void {
  if (!items.length) return
  const prev = usePendingDelete.getState().pending
  if (prev) void commit(prev)
  const p: Pending = { items, label, at: Date.now(), timer: setTimeout(() => void commit(p), UNDO_MS) }
  usePendingDelete.setState({ pending: p })
  const keys = new Set(keysOf(items))
  hideSessions(keys, true)
  dropRows(keys)
}

export function deleteWithUndo(profile: string, sessionId: string, title: string): void {
  deleteManyWithUndo([{ profile, sessionId }], `“${title}”`)
}

export function undoDelete(): void {
  const p = usePendingDelete.getState().pending
  if (p) {
    clearTimeout(p.timer)
    hideSessions(keysOf(p.items), false)
  }
  usePendingDelete.setState({ pending: null })
  void reloadSessions()
  void refreshSearch()
}

/**
 * The page is going away (tab or window closed, reloaded) while a delete waits out its undo window. The bar said
 * "Deleted"; leaving is not an undo, so the delete is sent now, by a path that outlives the page (keeping the
 * sessions would leave the user believing they are gone). Installed once by the entry (main.tsx) on `pagehide`.
 * Nothing confirms the host got a call made while leaving unless its answer arrives before the page dies (an IPC
 * message or a keepalive request may be lost with the window), so the sessions are first kept in this origin's
 * storage and forgotten only once the host answered for them; what is still kept is sent when the app next loads
 * here (`sendDeletesLeftOnLeave`). Deleting twice is harmless: "No session" counts as done. Over HTTP the browser
 * carries only so much while leaving (`leavingBudget`): what does not fit is simply not sent now.
 */
export function sendPendingDeleteOnLeave(): void {
  const p = usePendingDelete.getState().pending
  if (!p) return
  clearTimeout(p.timer)
  usePendingDelete.setState({ pending: null })
  keepForNextLoad(p.items)
  const budget = leavingBudget()
  const [one] = p.items
  if (p.items.length === 1 && one) callWhileLeaving('sessions.delete', one, budget, whenDone([one]))
  else sendPacked(p.items, budget)
  // a page kept for going back (bfcache) shows the list as the host has it when it comes back
  hideSessions(keysOf(p.items), false)
}

/**
 * Bulk deletes of `items` while the page goes away, packed by bytes: each body as full as the request limit and
 * what is left of `budget` allow (the page's keepalive bodies share one quota). What is not sent stays kept.
 */
function sendPacked(items: readonly Ref[], budget: LeavingBudget): void {
  const refs = items.map(({ profile, sessionId }) => ({ profile, sessionId }))
  const enc = new TextEncoder()
  // a body is the call with no sessions plus each session's JSON, comma separated
  const empty = leavingBytes('sessions.bulk', { action: 'delete', sessions: [] })
  let i = 0
  while (i < refs.length) {
    let bytes = empty
    let n = 0
    while (i + n < refs.length && n < MAX_BULK_SESSIONS) {
      const more = enc.encode(JSON.stringify(refs[i + n])).length + (n ? 1 : 0)
      if (bytes + more > budget.left) break
      bytes += more
      n++
    }
    const batch = refs.slice(i, i + n)
    if (!n || !callWhileLeaving('sessions.bulk', { action: 'delete', sessions: batch }, budget, whenDone(batch))) break
    i += n
  }
}

/**
 * The host's answer to a delete sent while leaving: it handled these sessions (a bulk answers for each; one already
 * gone is what was asked for), so the next load need not send them again. A failed call leaves them kept.
 */
const whenDone =
  (items: readonly Ref[]) =>
  (r: CallResult): void => {
    if (r.ok !== true && !/^No session '/.test(r.error?.message ?? '')) return
    const done = new Set(keysOf([...items]))
    try {
      const left = leftOver().filter((x) => !done.has(sessionKey(x.profile, x.sessionId)))
      if (left.length) localStorage.setItem(LEFT_KEY, JSON.stringify(left))
      else localStorage.removeItem(LEFT_KEY)
    } catch {
      /* storage off: they were never kept */
    }
  }

/** Deletes the user was told happened that the leaving page could not send: this origin sends them on its next load. */
const LEFT_KEY = 'caduceus.deletesLeftOnLeave'

function leftOver(): Ref[] {
  try {
    const v = parseJsonOr(localStorage.getItem(LEFT_KEY) ?? '[]', null)
    return Array.isArray(v)
      ? v.flatMap((r: Partial<Ref> | null) =>
          typeof r?.profile === 'string' && typeof r.sessionId === 'string'
            ? [{ profile: r.profile, sessionId: r.sessionId }]
            : []
        )
      : []
  } catch {
    return [] // storage off (SecurityError): nothing was kept
  }
}

function keepForNextLoad(items: Ref[]): void {
  try {
    localStorage.setItem(LEFT_KEY, JSON.stringify([...leftOver(), ...items]))
  } catch {
    /* storage off or full: nothing else outlives the page */
  }
}

/**
 * On load, once connected: the deletes an earlier page here left over as it went (`sendPendingDeleteOnLeave`). They
 * were never hidden on this load — the list shows what the host has — and leave it once the host deleted them.
 */
export async function sendDeletesLeftOnLeave(): Promise<void> {
  const items = leftOver()
  if (!items.length) return
  try {
    localStorage.removeItem(LEFT_KEY)
  } catch {
    return // a storage that cannot forget them would send them again on every load
  }
  const results = await sendBulk('delete', items)
  const failed = results.filter((r) => !r.ok)
  // already gone (another window sent them, or deleted elsewhere) is what was asked for
  if (failed.some((r) => !/^No session '/.test(r.error ?? ''))) {
    const { kind, message } = bulkSummary('delete', results)
    pushToast(kind, message)
  }
  void reloadSessions()
  void refreshSearch()
}
