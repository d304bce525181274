import { useRef, useState } from 'react'
import { SendIcon, StopIcon } from '../../components/icons'
import { MOD } from '../../app/ProfileRail'
import { stopTurn, type LiveTurn } from '../../stores/turns'

interface Props {
  /** Resolves true when the message was accepted; the text is kept otherwise. */
  onSend: (text: string) => Promise<boolean>
  running?: LiveTurn | null
  placeholder?: string
  disabled?: boolean
  testPrefix?: string
}

/** Message box: ⌘/Ctrl+Enter sends; Stop interrupts the running turn. Text survives a failed send. */
export function Composer({ onSend, running, placeholder, disabled, testPrefix = 'composer' }: Props) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const ref = useRef<HTMLTextAreaElement>(null)
  const canSend = text.trim().length > 0 && !sending && !disabled && !running

  const send = async () => {
    if (!canSend) return
    setSending(true)
    const ok = await onSend(text)
    setSending(false)
    if (ok) setText('')
    ref.current?.focus()
  }

  return (
    <div className="composer" data-testid={testPrefix}>
      <textarea ref={ref} value={text} rows={3} placeholder={placeholder ?? `Message…  (${MOD}Enter to send)`} data-testid={`${testPrefix}-input`}
        disabled={disabled} onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => { if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) { e.preventDefault(); void send() } }} />
      <div className="composer-actions">
        {running ? (
          <button className="danger" onClick={() => void stopTurn(running.turnId)} disabled={running.stopping} data-testid={`${testPrefix}-stop`}>
            <StopIcon /> {running.stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button className="primary" onClick={() => void send()} disabled={!canSend} data-testid={`${testPrefix}-send`} title={`Send (${MOD}Enter)`}>
            <SendIcon /> {sending ? 'Sending…' : 'Send'}
          </button>
        )}
      </div>
    </div>
  )
}
