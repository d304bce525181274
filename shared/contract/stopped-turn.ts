/**
 * The assistant row that closes a tool round the user stopped before the model answered its results. Without it the
 * next user message would follow a tool result, which strict providers take badly, so both agents write one: nobody
 * said its words, and the transcript shows it as an event ("Stopped by you"), not as the model's reply.
 */

/** Caduceus's closing row (src-main/agent/turn-loop.ts writes it; our wording). */
export const STOPPED_REPLY = '[Stopped by the user before the reply to these tool results.]'

/**
 * Upstream Hermes's closing row, stored with no finish reason: its bare placeholder, or the interrupted turn's answer
 * when it had one — the same opening with what the turn was doing when the stop came (a retry, an API error, the wait
 * for the model's reply): `Operation interrupted.`, `Operation interrupted during retry (…).`, `Operation interrupted:
 * handling API error (…).`, `Operation interrupted: waiting for model response (12.3s elapsed).`
 * (test/fixtures/upstream/stream-cutoff `length_tool_stop_tool` has one, masked there as `[stopped]`).
 */
const UPSTREAM_STOPPED = /^Operation interrupted(?:\.| during retry \(.*\)\.|: .+\.)$/

export interface StoppedTurn {
  writer: 'caduceus' | 'upstream'
  /** What the turn was doing when it was stopped, in upstream's words (`during retry (…)`), if the row says. */
  detail: string | null
}

/**
 * The stop this row records, or null when it is anything else: an assistant row without tool calls or a finish
 * reason (a model's reply always has one) whose whole text is one of the closing rows above.
 */
export function parseStoppedTurn(m: {
  role: string
  content: string | null
  finishReason: string | null
  toolCalls: unknown[] | null
}): StoppedTurn | null {
  if (m.role !== 'assistant' || m.finishReason || m.toolCalls?.length || !m.content) return null
  if (m.content === STOPPED_REPLY) return { writer: 'caduceus', detail: null }
  if (!UPSTREAM_STOPPED.test(m.content)) return null
  const detail = m.content.slice('Operation interrupted'.length).replace(/^:\s*/, '').replace(/\.$/, '').trim()
  return { writer: 'upstream', detail: detail || null }
}

/** The notice the transcript shows for such a row (StoppedTurnCard), in words every reading of a session uses. */
export const STOPPED_NOTICE = { title: 'Stopped by you', when: 'before the model answered the tool results' } as const

/** The notice as one line of text (an export, `sessions show`): what happened, and upstream's note where it has one. */
export function stoppedTurnText(stop: StoppedTurn): string {
  const note = stop.detail ? ` (upstream’s note: ${stop.detail})` : ''
  return `${STOPPED_NOTICE.title} ${STOPPED_NOTICE.when}${note}.`
}
