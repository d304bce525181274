import { useState } from 'react'
import { ChevronIcon } from '../../components/icons'
import { Highlighted } from '../../components/Snippet'

/**
 * A notice card's whole text — what the model was given — folded under the card; open from the start when a search
 * hit opened the message (the text it matched is in there).
 */
export function NoticeRaw({ content, terms }: { content: string | null; terms?: string[] }) {
  const [raw, setRaw] = useState(Boolean(terms?.length))
  return (
    <>
      <button
        className="fold-head notice-raw-toggle"
        aria-expanded={raw}
        onClick={() => setRaw(!raw)}
        data-testid="notice-raw-toggle"
      >
        <ChevronIcon open={raw} />
        <span className="muted small">Full notice as the model got it · {(content ?? '').length} chars</span>
      </button>
      {raw && (
        <div className="notice-text notice-raw" data-testid="notice-raw">
          <Highlighted text={content ?? ''} terms={terms} />
        </div>
      )}
    </>
  )
}
