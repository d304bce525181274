/**
 * Which call each stored tool result answers. Upstream stores a call in its assistant row's `tool_calls` and the
 * result as a later `role=tool` row carrying the call's id — but an id need not be unique in a session: when a
 * provider sends none, upstream derives one from the tool, its arguments and its place in the reply, so the same
 * command run in two turns carries the same id twice. Matching by id alone gave both calls the last result and hid
 * the first. A result answers the latest call before it with its id that is still unanswered (calls in one reply
 * are answered in any order; a call a killed run never answered does not take a later turn's result); one that comes
 * before any such call answers the latest unanswered call with its id.
 */

export interface PairRow {
  role: string
  toolCallId?: string | null
  toolCalls?: readonly { id: string }[] | null
}

export interface ToolPairing<M> {
  /** The result of call `callId` made in row `call`. */
  resultOf(call: M, callId: string): M | undefined
  /** Result rows that answer a call in `rows` (shown under their call, not on their own). */
  paired: Set<M>
}

/** Pairs the results in `rows` (in transcript order) with their calls. */
export function pairResults<M extends PairRow>(rows: readonly M[]): ToolPairing<M> {
  const answers = new Map<M, Map<string, M>>()
  const paired = new Set<M>()
  /** Calls still waiting for a result, by id, in order (a result takes the last). */
  const open = new Map<string, M[]>()
  const answer = (call: M, id: string, result: M) => {
    let byId = answers.get(call)
    if (!byId) answers.set(call, (byId = new Map()))
    byId.set(id, result)
    paired.add(result)
  }
  const early: M[] = []
  for (const m of rows) {
    for (const c of m.toolCalls ?? []) {
      const q = open.get(c.id)
      if (q) q.push(m)
      else open.set(c.id, [m])
    }
    if (m.role !== 'tool' || !m.toolCallId) continue
    const call = open.get(m.toolCallId)?.pop()
    if (call) answer(call, m.toolCallId, m)
    else early.push(m)
  }
  // a result stored before its call (rows written out of order): the latest call with its id still unanswered
  for (const m of early) {
    const q = open.get(m.toolCallId!)
    const call = q?.pop()
    if (call) answer(call, m.toolCallId!, m)
  }
  return { resultOf: (call, id) => answers.get(call)?.get(id), paired }
}

/** A tool call as an exported message holds it, its arguments as the text sent. */
export interface StoredCall {
  id: string
  name: string
  arguments: string
}

/**
 * The calls in an exported message's `tool_calls` (upstream's `{id, function: {name, arguments}}`, or the flat
 * `{id, name, arguments}`): arguments sent as an object re-encoded as JSON text, a call without a name read as `tool`.
 */
export function storedCalls(m: Record<string, unknown>): StoredCall[] {
  if (!Array.isArray(m.tool_calls)) return []
  return m.tool_calls.flatMap((c: unknown) => {
    if (!c || typeof c !== 'object') return []
    const o = c as Record<string, unknown>
    const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {})
    return [
      { id: String(o.id ?? ''), name: typeof fn.name === 'string' && fn.name ? fn.name : 'tool', arguments: args }
    ]
  })
}
