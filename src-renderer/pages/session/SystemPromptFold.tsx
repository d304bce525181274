import { useState } from 'react'

/**
 * "What did the model see": the system prompt the session's latest turn used (persona, memory, instructions),
 * as the home stores it. Folded by default; absent when the home holds none.
 */
export function SystemPromptFold({ prompt }: { prompt: string | null | undefined }) {
  const [open, setOpen] = useState(false)
  if (!prompt) return null
  return (
    <div className={`fold system-prompt-fold${open ? ' open' : ''}`} data-testid="system-prompt">
      <button
        className="fold-head small muted"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="system-prompt-toggle"
      >
        System prompt ({prompt.length.toLocaleString()} characters)
      </button>
      {open && (
        <pre className="fold-body small mono wrap" data-testid="system-prompt-text">
          {prompt}
        </pre>
      )}
    </div>
  )
}
