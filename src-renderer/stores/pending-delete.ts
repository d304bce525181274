import { create } from 'zustand'
import { MAX_BULK_SESSIONS } from '@shared/contract'
import { callWhileLeaving, getApi } from '../api'
import { bulkSummary, chunks } from '../lib/bulk-summary'
import { sendBulk } from './bulk-actions'
import { dropRows, hideSessions, refreshSearch, reloadSessions, sessionKey } from './sessions'
import { pushToast, reportError } from './toasts'
import { forgetTranscript } from './transcript-window'

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
 */
export function sendPendingDeleteOnLeave(): void {
  const p = usePendingDelete.getState().pending
  if (!p) return
  clearTimeout(p.timer)
  usePendingDelete.setState({ pending: null })
  const [one] = p.items
  if (p.items.length === 1 && one) callWhileLeaving('sessions.delete', one)
  else
    for (const part of chunks(p.items, MAX_BULK_SESSIONS))
      callWhileLeaving('sessions.bulk', { action: 'delete', sessions: part })
  // a page kept for going back (bfcache) shows the list as the host has it when it comes back
  hideSessions(keysOf(p.items), false)
}
