import type { CaduceusApi } from '@shared/contract'
import { loadApp, recountProfiles, refreshProfiles, useApp } from './app'
import { applyCostsSessionsChanged } from './costs'
import { applyMemoryActivity, applyMemoryFilesChanged } from './memory'
import {
  applyProfileNoticesChanged,
  applySearchSessionsChanged,
  applySessionsChanged,
  isRowsKey,
  sessionRowsLoaded
} from './sessions'
import { applyDelegationUpdated, applySubagentsSessionsChanged } from './subagents'
import {
  applyTranscriptDelegationUpdated,
  applyTranscriptFileChanged,
  applyTranscriptMessageSaved,
  applyTranscriptSessionsChanged,
  resyncTranscript
} from './transcript-live'
import { applyTurnDelta, applyTurnFinished, applyTurnQueued, applyTurnStarted, syncTurns } from './turns'
import { applyGatewayChanged } from './gateway'
import { applyCronChanged } from './cron'
import { queryClient } from './server'
import { applyFollowUpDelta } from './follow-up-stream'
import { applyPricesChanged } from './prices'
import { applyStoreLock, clearLocks, readAgainLeftOut } from './locks'
import { openTranscript, useTranscript } from './transcript'

/**
 * The one place host events meet the stores. Components never subscribe to the transport themselves,
 * so each event is applied once however many views show it.
 */
export function wireBridge(api: CaduceusApi): () => void {
  const offs = [
    api.on('sessions.changed', (e) => {
      void applySessionsChanged(e)
      void applySearchSessionsChanged(e)
      void applySubagentsSessionsChanged(e)
      void applyTranscriptSessionsChanged(e)
      void applyCostsSessionsChanged(e)
      void recountProfiles()
    }),
    api.on('turn.queued', applyTurnQueued),
    api.on('turn.started', applyTurnStarted),
    api.on('turn.delta', (e) => {
      applyTurnDelta(e)
      applyTranscriptMessageSaved(e)
    }),
    api.on('turn.finished', applyTurnFinished),
    api.on('delegation.updated', (e) => {
      void applyDelegationUpdated(e)
      void applyTranscriptDelegationUpdated(e)
    }),
    api.on('memory.activity', applyMemoryActivity),
    api.on('memory.changed', (e) => {
      void applyMemoryFilesChanged(e)
      // a memory file that became unreadable (or readable again) changes the profile's notice: in the rail, and in
      // the banner above the sessions list or search results
      void refreshProfiles()
      applyProfileNoticesChanged(e.profile)
    }),
    api.on('gateway.changed', () => void applyGatewayChanged()),
    api.on('cron.changed', (e) => void applyCronChanged(e)),
    api.on('profiles.changed', () => {
      void refreshProfiles()
      // also said when a profile's state.db was replaced (a restore) or deleted: rows may differ under the same ids
      void applyTranscriptFileChanged()
    }),
    api.on('prices.changed', () => void applyPricesChanged()),
    api.on('subagents.followUpDelta', applyFollowUpDelta),
    api.on('store.lockChanged', (e) => {
      applyStoreLock(e)
      if (e.state !== 'cleared') return
      // what was served without the profile while it was locked is read again, the rail's "cannot be read" too
      void readAgainLeftOut(e.profile)
      if (useApp.getState().profiles.some((p) => p.name === e.profile && p.error)) void refreshProfiles()
    })
  ]
  return () => {
    for (const off of offs) off()
  }
}

/** After a reconnect events were missed: re-read what is on screen (merging, never clobbering). */
export async function resyncAfterReconnect(): Promise<void> {
  clearLocks()
  await Promise.all([loadApp(), syncTurns()])
  const merge = sessionRowsLoaded()
  // every cached read is stale; the ones on screen refetch now. A session list is merged with the host instead
  // of read again from its first page (the loaded pages and the scroll position stay).
  // (A list that never loaded, the host being down, is read from its first page.) A transcript's window has no
  // fetch of its own: it catches up below.
  await queryClient.invalidateQueries({ predicate: (q) => !isRowsKey(q.queryKey) || q.state.data === undefined })
  if (merge) void applySessionsChanged({ profile: '', sessionIds: [] }, true)
  await resyncTranscript()
}

/**
 * Retry by hand after a read gave up on another program's lock: what is on screen is read again, as after a
 * reconnect, and a transcript whose first page failed is opened again (its window is empty, nothing to catch up).
 */
export async function retryLockedReads(): Promise<void> {
  const t = useTranscript.getState()
  // first: the catch-up below would fill the empty window from its end, and leave the error standing over it
  if (t.profile && t.sessionId && t.error) await openTranscript(t.profile, t.sessionId, t.focusId)
  await resyncAfterReconnect()
}
