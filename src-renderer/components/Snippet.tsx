/** Search snippet: hit parts in <mark>; text is rendered as text, never as HTML. */
export function Snippet({ parts }: { parts: Array<{ text: string; hit: boolean }> }) {
  return <span className="snippet">{parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}</span>
}
