import { useRef, useState } from 'react'
import type { BusyInputMode } from '@shared/contract'
import { clearSentDraft, useDraft } from '../../lib/drafts'
import { SendIcon, StopIcon } from '../../components/icons'
import { MOD } from '../../app/ProfileRail'
import { stopTurn, type LiveTurn } from '../../stores/turns'

interface Props {
  /**
   * Resolves true when the message was accepted; the text is kept otherwise. `busyMode`: a turn is running and the
   * user sent anyway — the profile's busy input mode says what becomes of the message.
   */
  onSend: (text: string, opts: { busyMode?: BusyInputMode }) => Promise<boolean>
  running?: LiveTurn | null
  /** The profile's `display.busy_input_mode`: what Send does while a turn runs. */
  busyMode?: BusyInputMode
  /** Messages wait in the session's queue: a new one is sent as while busy even before their turn shows running. */
  queuedAhead?: boolean
  placeholder?: string
  disabled?: boolean
  testPrefix?: string
  /** Where unsent text is kept (e.g. `session:<profile>/<id>`), so leaving the page or reloading keeps it. */
  draftKey?: string
  autoFocus?: boolean
}

/** What Send says while a turn runs, per busy input mode: its label and what it does. */
const BUSY_SEND: Record<BusyInputMode, { label: string; help: string }> = {
  interrupt: { label: 'Send now', help: 'Stop the running turn and send this now' },
  queue: { label: 'Queue', help: 'Send this once the running turn ends' },
  steer: { label: 'Steer', help: 'Add this to the running turn at its next step' }
}

/**
 * Message box: ⌘/Ctrl+Enter sends; Stop interrupts the running turn. Sending while it runs follows the profile's
 * busy input mode (upstream's `display.busy_input_mode`): interrupt ("Send now"), queue or steer. Text survives a
 * failed send.
 */
export function Composer({
  onSend,
  running,
  busyMode = 'interrupt',
  queuedAhead = false,
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
  // Another channel's turn (an API request, a cron run) is that channel's to stop; a message sent meanwhile waits.
  const foreign = Boolean(running?.source && running.source !== 'desktop')
  const mode: BusyInputMode = foreign ? 'queue' : busyMode
  const busy = Boolean(running) || queuedAhead

  const send = async () => {
    if (!canSend) return
    setSending(true)
    const sent = text
    const ok = await onSend(sent, busy ? { busyMode: mode } : {})
    setSending(false)
    // only clear what was sent: text typed while the send was in flight stays. The draft is the key's, not this
    // component's: the page may have been left (and opened again) while the send was in flight.
    if (ok && draftKey) clearSentDraft(draftKey, sent)
    else if (ok && latest.current === sent) setText('')
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
        {running && foreign && (
          <span className="muted small" data-testid="composer-foreign-turn">
            A {running.source} turn is running; it can only be stopped where it started.
          </span>
        )}
        {running && !foreign && (
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
          title={busy ? `${BUSY_SEND[mode].help} (${MOD}Enter)` : `Send (${MOD}Enter)`}
          // the visible label starts the accessible name (WCAG 2.5.3), then what it will do
          aria-label={busy ? `${BUSY_SEND[mode].label}: ${BUSY_SEND[mode].help.toLowerCase()}` : undefined}
        >
          <SendIcon /> {sending ? 'Sending…' : busy ? BUSY_SEND[mode].label : 'Send'}
        </button>
      </div>
    </div>
  )
}
