import { Fragment } from 'react'
import { highlightParts } from '../lib/highlight'
import { plainSnippet } from '../lib/plain-snippet'

/** Search snippet: hit parts in <mark>; plain text around them (no Markdown or JSON markup), never HTML. */
export function Snippet({ parts }: { parts: Array<{ text: string; hit: boolean }> }) {
  return (
    <span className="snippet">
      {plainSnippet(parts).map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  )
}

/** Plain text with the search terms marked (the message a search hit opened). */
export function Highlighted({ text, terms }: { text: string; terms: string[] | undefined }) {
  if (!terms?.length) return <>{text}</>
  return (
    <>
      {highlightParts(text, terms).map((p, i) =>
        p.hit ? <mark key={i}>{p.text}</mark> : <Fragment key={i}>{p.text}</Fragment>
      )}
    </>
  )
}
