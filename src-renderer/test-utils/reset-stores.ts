import type { StoreApi } from 'zustand'
import { useApp } from '../stores/app'
import { useCosts } from '../stores/costs'
import { useGateway } from '../stores/gateway'
import { useLocks } from '../stores/locks'
import { useMemory } from '../stores/memory'
import { useSessions } from '../stores/sessions'
import { useSettings } from '../stores/settings'
import { useSubagents } from '../stores/subagents'
import { queryClient } from '../stores/server'
import { useToasts } from '../stores/toasts'
import { useTranscript } from '../stores/transcript'
import { useTurns } from '../stores/turns'

/**
 * Each store back to its initial state, and the query cache emptied (the transcripts kept for switching back with
 * it). Module state beyond the stores needs no reset: each test awaits its loads and timers and ends its watches.
 */
export function resetStores(): void {
  queryClient.clear()
  const reset = <T>(store: StoreApi<T>) => store.setState(store.getInitialState(), true)
  reset(useApp)
  reset(useCosts)
  reset(useGateway)
  reset(useLocks)
  reset(useMemory)
  reset(useSessions)
  reset(useSettings)
  reset(useSubagents)
  reset(useToasts)
  reset(useTranscript)
  reset(useTurns)
}
