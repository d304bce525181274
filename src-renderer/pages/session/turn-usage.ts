/**
 * Turns of a transcript as a reader sees them: a user message and everything the assistant did until the next
 * one. Each turn sums the tokens and cost its model calls saved (`Message.usage`, one per reply) and lists its
 * tool calls on a timeline: when each started (its assistant row), how long until its result row, the result's
 * size. Upstream's own rows carry no usage: such a turn shows its tool timeline and `token_count` at most.
 */
import type { Message, Money, Tokens } from '@shared/contract'
import { sumMoney } from '@shared/contract/money'
import { addTokens, ZERO_TOKENS } from '@shared/contract/tokens'
import { isCompactionSummary } from '@shared/contract/notice-rows'
import { callDuration, type ToolPairs } from './tool-pairs'

export interface ToolSpan {
  callId: string
  name: string
  /** Epoch seconds: the assistant row that made the call. */
  start: number
  /** Seconds to its result row; null when the rows do not say (no result, equal stamps). */
  duration: number | null
  /** Characters (UTF-8 bytes when the page cut it) of the result; null without a result. */
  resultSize: number | null
}

export interface TurnSummary {
  /** The turn's last assistant message: its strip shows under that row. */
  lastId: number
  /** Summed over the calls that saved usage; null when none did. */
  tokens: Tokens | null
  cost: Money | null
  /** Model calls that saved usage. */
  calls: number
  /** Upstream's per-message token_count summed, for turns with no saved usage. */
  tokenCount: number | null
  models: string[]
  tools: ToolSpan[]
}

/** One summary per turn that has an assistant message loaded, keyed by that turn's last assistant message id. */
export function summarizeTurns(
  ids: number[],
  byId: Record<number, Message>,
  pairs: ToolPairs
): Map<number, TurnSummary> {
  const out = new Map<number, TurnSummary>()
  let cur: { msgs: Message[] } = { msgs: [] }
  const flush = () => {
    const assistants = cur.msgs.filter((m) => m.role === 'assistant')
    const last = assistants[assistants.length - 1]
    if (!last) return
    const used = assistants.filter((m) => m.usage)
    const tools: ToolSpan[] = []
    for (const a of assistants)
      for (const c of a.toolCalls ?? []) {
        const r = pairs.resultOf(a, c.id)
        tools.push({
          callId: c.id,
          name: c.name,
          start: a.timestamp,
          duration: r ? callDuration(a, r) : null,
          resultSize: r ? (r.contentBytes ?? (r.content ?? '').length) : null
        })
      }
    const counts = assistants.map((m) => m.tokenCount).filter((n): n is number => n != null)
    out.set(last.id, {
      lastId: last.id,
      tokens: used.length ? summedTokens(used.map((m) => m.usage!.tokens)) : null,
      cost: used.length ? sumMoney(used.map((m) => m.usage!.cost)) : null,
      calls: used.length,
      tokenCount: counts.length ? counts.reduce((a, b) => a + b, 0) : null,
      models: [...new Set(used.map((m) => m.usage!.model).filter((x): x is string => !!x))],
      tools
    })
  }
  for (const id of ids) {
    const m = byId[id]
    // a compression summary, whichever role its writer gave it, is nobody's turn and no turn's reply
    if (!m || isCompactionSummary(m.role, m.content)) continue
    if (m.role === 'user') {
      flush()
      cur = { msgs: [] }
    }
    cur.msgs.push(m)
  }
  flush()
  return out
}

function summedTokens(all: Tokens[]): Tokens {
  const sum = ZERO_TOKENS()
  for (const t of all) addTokens(sum, t)
  return sum
}
