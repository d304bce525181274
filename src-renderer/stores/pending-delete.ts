import { create } from 'zustand'
import { getApi } from '../api'
import { reloadSessions, sessionKey, useSessions } from './sessions'
import { reportError } from './toasts'
import { forgetTranscript } from './transcript'

/** How long "Undo" is offered before the delete is sent: the delete itself cannot be undone. */
export const UNDO_MS = 8000

const callDelete = (profile: string, sessionId: string) => {
  forgetTranscript(profile, sessionId)
  return getApi().call('sessions.delete', { profile, sessionId })
}

interface Pending {
  profile: string
  sessionId: string
  title: string
  at: number
}
export const usePendingDelete = create<{ pending: Pending | null }>()(() => ({ pending: null }))
let timer: ReturnType<typeof setTimeout> | null = null

async function commit(p: Pending): Promise<void> {
  timer = null
  usePendingDelete.setState({ pending: null })
  try {
    await callDelete(p.profile, p.sessionId)
  } catch (err) {
    reportError(err, 'Deleting session')
    void reloadSessions()
  }
}

/** Hide the row now, delete after the undo window (a second delete first commits the earlier one). */
export function deleteWithUndo(profile: string, sessionId: string, title: string): void {
  const prev = usePendingDelete.getState().pending
  if (prev && timer) {
    clearTimeout(timer)
    void commit(prev)
  }
  const p = { profile, sessionId, title, at: Date.now() }
  usePendingDelete.setState({ pending: p })
  const k = sessionKey(profile, sessionId)
  useSessions.setState((s) => {
    if (!s.byKey[k]) return s
    const byKey = { ...s.byKey }
    delete byKey[k]
    return { byKey, order: s.order.filter((x) => x !== k) }
  })
  timer = setTimeout(() => void commit(p), UNDO_MS)
}

export function undoDelete(): void {
  if (timer) clearTimeout(timer)
  timer = null
  usePendingDelete.setState({ pending: null })
  void reloadSessions()
}
