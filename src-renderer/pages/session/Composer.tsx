import { useRef, useState } from 'react'
import { useDraft } from '../../lib/drafts'
import { SendIcon, StopIcon } from '../../components/icons'
import { MOD } from '../../app/ProfileRail'
import { stopTurn, type LiveTurn } from '../../stores/turns'

interface Props {
  /**
   * Resolves true when the message was accepted; the text is kept otherwise. `interrupt`: a turn is running and
   * the user sent anyway — stop it and run this message next (upstream's default busy input mode).
   */
  onSend: (text: string, opts: { interrupt: boolean }) => Promise<boolean>
  running?: LiveTurn | null
  placeholder?: string
  disabled?: boolean
  testPrefix?: string
  /** Where unsent text is kept (e.g. `session:<profile>/<id>`), so leaving the page or reloading keeps it. */
  draftKey?: string
  autoFocus?: boolean
}

/**
 * Message box: ⌘/Ctrl+Enter sends; Stop interrupts the running turn, and sending while it runs interrupts it with
 * the new message ("Send now"). Text survives a failed send.
 */
export function Composer({
  onSend,
  running,
  placeholder,
  disabled,
  testPrefix = 'composer',
  draftKey,
  autoFocus
}: Props) {
  const [text, setText] = useDraft(draftKey ?? null)
  const [sending, setSending] = useState(false)
  const ref = useRef<HTMLTextAreaElement>(null)
  const latest = useRef(text)
  latest.current = text
  const canSend = text.trim().length > 0 && !sending && !disabled

  const send = async () => {
    if (!canSend) return
    setSending(true)
    const sent = text
    const ok = await onSend(sent, { interrupt: Boolean(running) })
    setSending(false)
    // only clear what was sent: text typed while the send was in flight stays
    if (ok && latest.current === sent) setText('')
    ref.current?.focus()
  }

  return (
    <div className="composer" data-testid={testPrefix}>
      <textarea
        ref={ref}
        value={text}
        rows={3}
        placeholder={placeholder ?? `Message…  (${MOD}Enter to send)`}
        data-testid={`${testPrefix}-input`}
        disabled={disabled}
        autoFocus={autoFocus}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
            e.preventDefault()
            void send()
          }
        }}
      />
      <div className="composer-actions">
        {running && (
          <button
            className="danger"
            onClick={() => void stopTurn(running.turnId)}
            disabled={running.stopping}
            data-testid={`${testPrefix}-stop`}
          >
            <StopIcon /> {running.stopping ? 'Stopping…' : 'Stop'}
          </button>
        )}
        {/* always mounted (disabled without text): no layout shift, and focus stays put as text comes and goes */}
        <button
          className="primary"
          onClick={() => void send()}
          disabled={!canSend}
          data-testid={`${testPrefix}-send`}
          title={running ? `Stop the running turn and send this now (${MOD}Enter)` : `Send (${MOD}Enter)`}
          aria-label={running ? 'Stop the running turn and send this now' : undefined}
        >
          <SendIcon /> {sending ? 'Sending…' : running ? 'Send now' : 'Send'}
        </button>
      </div>
    </div>
  )
}
