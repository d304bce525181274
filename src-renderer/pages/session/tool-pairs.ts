import { createContext, useContext } from 'react'
import type { Message } from '@shared/contract'
import { pairResults } from '@shared/contract/tool-pairing'

/**
 * Calls and their results as upstream stores them: an assistant row lists `tool_calls`, each result is its own
 * `role=tool` row carrying the call's id (not always unique in a session: shared/contract/tool-pairing.ts). The
 * transcript shows each result inside its call.
 */
export interface ToolPairs {
  /** The result of call `callId` made in assistant row `call`, when it is loaded. */
  resultOf(call: Message, callId: string): Message | undefined
  /** Ids of result rows whose call is loaded: they render inside the call, not on their own. */
  paired: Set<number>
}

export function pairToolCalls(byId: Record<number, Message>): ToolPairs {
  const rows = Object.values(byId).sort((a, b) => a.id - b.id)
  const { resultOf, paired } = pairResults(rows)
  return { resultOf, paired: new Set([...paired].map((m) => m.id)) }
}

/** Seconds from the call's row to its result's row, when the stored timestamps say (upstream stamps each row). */
export function callDuration(call: Message, result: Message): number | null {
  const d = result.timestamp - call.timestamp
  return d > 0 && d < 24 * 3600 ? d : null
}

export const ToolPairsContext = createContext<ToolPairs>({ resultOf: () => undefined, paired: new Set() })
export const useToolPairs = () => useContext(ToolPairsContext)
