/**
 * Turning a finished background process into the session's next turn: the notice is saved as a `user`
 * message (`display_kind='process_complete'`) first, so it survives even if the follow-up turn cannot run.
 */
import type { ProcessCompletion } from './process-types'

const PROCESS_COMPLETE_DISPLAY_KIND = 'process_complete'

/** The slice of SessionStore this needs (tools/ may not import store/). */
export interface CompletionStore {
  appendMessage(
    sessionId: string,
    msg: { role: string; content: string; displayKind: string; displayMetadata: Record<string, unknown> }
  ): number | Promise<number>
  /** May answer later: the host waits out another program's commit (a rollback-journal home) before it reads. */
  resolveResumeSessionId?(sessionId: string): string | null | undefined | Promise<string | null | undefined>
}

export function processCompletionNotice(c: ProcessCompletion): string {
  const how = c.exitCode !== null ? `exit code ${c.exitCode}` : c.signal ? `signal ${c.signal}` : 'unknown status'
  const lines = [`[Background process ${c.processId} finished: ${how}]`, `Command: ${c.command}`]
  lines.push(c.outputTail.trim() ? `Output (tail):\n${c.outputTail.trimEnd()}` : 'Output: (none)')
  return lines.join('\n')
}

/** Append the notice to the session's live tip (it may have rotated through compression meanwhile). */
export async function saveProcessCompletion(
  store: CompletionStore,
  c: ProcessCompletion
): Promise<{ sessionId: string; messageId: number; text: string }> {
  let target = c.sessionId
  try {
    target = (await store.resolveResumeSessionId?.(c.sessionId)) || c.sessionId
  } catch {
    target = c.sessionId
  }
  const text = processCompletionNotice(c)
  const messageId = await store.appendMessage(target, {
    role: 'user',
    content: text,
    displayKind: PROCESS_COMPLETE_DISPLAY_KIND,
    displayMetadata: { process_id: c.processId, exit_code: c.exitCode, signal: c.signal, delivery_notice: 'completion' }
  })
  return { sessionId: target, messageId, text }
}
