/**
 * A field the host cut for the page (issue 24: pages carry previews and sizes, never a field whole) — a tool's
 * output, or a call's arguments: the preview, its full size, and "Show all", which reads the rest with
 * `sessions.messageText` one chunk at a time.
 */
import { useState, type ReactNode } from 'react'
import { MESSAGE_TEXT_CHUNK, type Message } from '@shared/contract'
import { getApi } from '../../api'
import { ToolOutput } from './ToolOutput'
import { useTranscript } from '../../stores/transcript'
import { errorMessage } from '../../lib/format'

const size = (bytes: number) =>
  bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024).toLocaleString()} KB`

type LoadState = { read: number; total: number } | { error: string } | null

/** Reads a cut field whole: `field` of message `m` (for `arguments`, of its call `callIndex`), chunk by chunk. */
function useWholeField(m: Message, field: 'content' | 'arguments', callIndex = 0) {
  const [full, setFull] = useState<string | null>(null)
  const [state, setState] = useState<LoadState>(null)
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
          field,
          callIndex,
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
  return { full, state, load }
}

/** The notice under a cut field: how much it is, and "Show all" (or its progress, or why it failed). */
function CutNotice({
  shown,
  bytes,
  state,
  onLoad
}: {
  shown: boolean
  bytes: number
  state: LoadState
  onLoad: () => void
}) {
  return (
    <div className="muted tool-cut" data-testid="tool-cut">
      {shown ? 'Showing the start' : 'Not shown'} of {size(bytes)}.{' '}
      {state && 'error' in state ? (
        <span className="error">{state.error}</span>
      ) : state ? (
        <span>Loading… {Math.round((state.read / state.total) * 100)}%</span>
      ) : (
        <button className="link" data-testid="tool-show-all" onClick={onLoad}>
          Show all
        </button>
      )}
    </div>
  )
}

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
  const { full, state, load } = useWholeField(m, 'content')
  const output = <ToolOutput text={full ?? m.content ?? ''} tool={tool ?? m.toolName} path={path} terms={terms} />
  if (m.contentBytes === undefined || full !== null) return output
  return (
    <>
      {output}
      <CutNotice shown={!!m.content} bytes={m.contentBytes} state={state} onLoad={() => void load()} />
    </>
  )
}

/**
 * A call's arguments (call `index` of message `call`), rendered by `view`; when the host cut them (`bytes`), the
 * start is shown with the cut notice and "Show all" reads them whole.
 */
export function CallArguments({
  call,
  index,
  args,
  bytes,
  view
}: {
  call: Message
  index: number
  args: string
  bytes: number | undefined
  view: (args: string, cut: boolean) => ReactNode
}) {
  const { full, state, load } = useWholeField(call, 'arguments', index)
  if (bytes === undefined || full !== null) return <>{view(full ?? args, false)}</>
  return (
    <>
      {view(args, true)}
      <CutNotice shown={!!args} bytes={bytes} state={state} onLoad={() => void load()} />
    </>
  )
}

/**
 * A row holding a compression summary merged into a kept message, cut by the host (its kept words and the summary's
 * start, each a preview): `view` gets the text to read the two parts from — the page's, then the whole row once
 * "Show all" (`cut`, shown under the summary) has read it.
 */
export function CutMergedRow({ m, view }: { m: Message; view: (text: string, cut: ReactNode) => ReactNode }) {
  const { full, state, load } = useWholeField(m, 'content')
  const cut =
    m.contentBytes === undefined || full !== null ? null : (
      <CutNotice shown bytes={m.contentBytes} state={state} onLoad={() => void load()} />
    )
  return <>{view(full ?? m.content ?? '', cut)}</>
}

/** What a row the page could not read holds, as the page knows it without its text (notice-rows.ts unreadText). */
const UNREAD_LABEL = {
  merged: 'A message with a compression summary merged into it, too large to read for the page',
  summary: 'A compression summary, too large to read for the page',
  message: 'A message too large to read for the page'
} as const

/**
 * A user or assistant row over the page's read bound (its text never reached the page): `shell` wraps what it holds
 * as the page knows it, with the cut notice; once "Show all" has read it, `whole` shows it as a row read in full is
 * shown (the kept words and the folded summary of a merged row, a summary folded).
 */
export function UnreadMessage({
  m,
  what,
  shell,
  whole
}: {
  m: Message
  what: keyof typeof UNREAD_LABEL
  shell: (children: ReactNode) => ReactNode
  whole: (text: string) => ReactNode
}) {
  const { full, state, load } = useWholeField(m, 'content')
  if (full !== null) return <>{whole(full)}</>
  return (
    <>
      {shell(
        <>
          <div className="msg-body muted" data-testid="message-unread" data-unread={what}>
            {UNREAD_LABEL[what]}
          </div>
          <CutNotice shown={false} bytes={m.contentBytes ?? 0} state={state} onLoad={() => void load()} />
        </>
      )}
    </>
  )
}
