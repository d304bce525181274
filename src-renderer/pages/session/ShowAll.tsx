/**
 * A tool output the host cut for the page (issue 24: pages carry previews and sizes, never a field whole): the
 * preview, its full size, and "Show all", which reads the rest with `sessions.messageText` one chunk at a time.
 */
import { useState } from 'react'
import { MESSAGE_TEXT_CHUNK, type Message } from '@shared/contract'
import { getApi } from '../../api'
import { ToolOutput } from './ToolOutput'
import { useTranscript } from '../../stores/transcript'
import { errorMessage } from '../../lib/format'

const size = (bytes: number) =>
  bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024).toLocaleString()} KB`

/** A tool result's output; when the host cut it, with the cut notice and its "Show all" button. */
export function ToolResultOutput({
  m,
  terms,
  tool,
  path
}: {
  m: Message
  terms?: string[]
  tool?: string
  path?: string
}) {
  const [full, setFull] = useState<string | null>(null)
  const [state, setState] = useState<{ read: number; total: number } | { error: string } | null>(null)
  const output = <ToolOutput text={full ?? m.content ?? ''} tool={tool ?? m.toolName} path={path} terms={terms} />
  if (m.contentBytes === undefined || full !== null) return output
  const load = async () => {
    const profile = useTranscript.getState().profile
    if (!profile) return
    const parts: string[] = []
    try {
      for (let offset = 0, total = 1; offset < total; offset += MESSAGE_TEXT_CHUNK) {
        const chunk = await getApi().call('sessions.messageText', {
          profile,
          sessionId: m.sessionId,
          messageId: m.id,
          field: 'content',
          offset
        })
        parts.push(chunk.text)
        total = chunk.total
        setState({ read: Math.min(offset + MESSAGE_TEXT_CHUNK, total), total })
      }
      setFull(parts.join(''))
    } catch (err) {
      setState({ error: errorMessage(err) })
    }
  }
  return (
    <>
      {output}
      <div className="muted tool-cut" data-testid="tool-cut">
        {m.content ? 'Showing the start' : 'Not shown'} of {size(m.contentBytes)}.{' '}
        {state && 'error' in state ? (
          <span className="error">{state.error}</span>
        ) : state ? (
          <span>Loading… {Math.round((state.read / state.total) * 100)}%</span>
        ) : (
          <button className="link" data-testid="tool-show-all" onClick={() => void load()}>
            Show all
          </button>
        )}
      </div>
    </>
  )
}
