import { createContext, useContext } from 'react'
import type { Message } from '@shared/contract'

/**
 * Calls and their results as upstream stores them: an assistant row lists `tool_calls`, each result is its own
 * `role=tool` row carrying the call's id. The transcript shows each result inside its call.
 */
export interface ToolPairs {
  /** Result row by the id of the call it answers. */
  results: Map<string, Message>
  /** Ids of calls whose assistant row is loaded: their result rows render inside the call, not on their own. */
  calls: Map<string, Message>
}

export function pairToolCalls(byId: Record<number, Message>): ToolPairs {
  const results = new Map<string, Message>()
  const calls = new Map<string, Message>()
  for (const m of Object.values(byId)) {
    if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m)
    for (const c of m.toolCalls ?? []) calls.set(c.id, m)
  }
  return { results, calls }
}

/** Seconds from the call's row to its result's row, when the stored timestamps say (upstream stamps each row). */
export function callDuration(call: Message, result: Message): number | null {
  const d = result.timestamp - call.timestamp
  return d > 0 && d < 24 * 3600 ? d : null
}

export const ToolPairsContext = createContext<ToolPairs>({ results: new Map(), calls: new Map() })
export const useToolPairs = () => useContext(ToolPairsContext)
