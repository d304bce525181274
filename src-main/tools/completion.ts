/**
 * A finished background process as the message that becomes the session's next turn: a `user` message
 * (`display_kind='process_complete'`). The host keeps it durably until it is appended (host/services/process-notices.ts).
 */
import type { ProcessCompletion } from './process-types'

const PROCESS_COMPLETE_DISPLAY_KIND = 'process_complete'

export function processCompletionNotice(c: ProcessCompletion): string {
  const how = c.exitCode !== null ? `exit code ${c.exitCode}` : c.signal ? `signal ${c.signal}` : 'unknown status'
  const lines = [`[Background process ${c.processId} finished: ${how}]`, `Command: ${c.command}`]
  lines.push(c.outputTail.trim() ? `Output (tail):\n${c.outputTail.trimEnd()}` : 'Output: (none)')
  return lines.join('\n')
}

/** The message as it is stored in the session (role, text, display kind and metadata). */
export function processCompletionMessage(c: ProcessCompletion): {
  role: 'user'
  content: string
  displayKind: string
  displayMetadata: Record<string, unknown>
} {
  return {
    role: 'user',
    content: processCompletionNotice(c),
    displayKind: PROCESS_COMPLETE_DISPLAY_KIND,
    displayMetadata: { process_id: c.processId, exit_code: c.exitCode, signal: c.signal, delivery_notice: 'completion' }
  }
}
