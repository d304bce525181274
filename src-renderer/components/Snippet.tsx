import { Fragment } from 'react'
import { highlightParts } from '../lib/highlight'
import { plainSnippet } from '../lib/plain-snippet'
import { showControls } from '@shared/contract/control-chars'

/** Search snippet: hit parts in <mark>; plain text around them (no Markdown or JSON markup), never HTML. */
export function Snippet({ parts }: { parts: Array<{ text: string; hit: boolean }> }) {
  return (
    <span className="snippet">
      {plainSnippet(parts).map((p, i) =>
        p.hit ? <mark key={i}>{showControls(p.text)}</mark> : <span key={i}>{showControls(p.text)}</span>
      )}
    </span>
  )
}

/** Plain text with the search terms marked (the message a search hit opened). */
export function Highlighted({ text: raw, terms }: { text: string; terms: string[] | undefined }) {
  const text = showControls(raw) // a NUL or an ESC drawn as its picture, not an empty box
  if (!terms?.length) return <>{text}</>
  return (
    <>
      {highlightParts(text, terms).map((p, i) =>
        p.hit ? <mark key={i}>{p.text}</mark> : <Fragment key={i}>{p.text}</Fragment>
      )}
    </>
  )
}
