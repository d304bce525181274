/**
 * A tool call's one-line summary, read from its `arguments` JSON. Upstream writes that JSON as Python's json.dumps
 * does (every non-ASCII character as `\uXXXX`), and models differ; shown raw, a call to write `rapport-été.md` read
 * `{"path": "rapport-\u00e9t\u00e9.md", …}`. The summary shows what the call was given — `key: value` pairs, strings
 * as text — and falls back to the raw text (whitespace folded) when it is not a JSON object.
 */
const MAX = 80

function valueText(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || typeof v !== 'object') return String(v)
  return JSON.stringify(v)
}

/** At most `max` characters (code points: a cut never splits an emoji's surrogate pair), with an ellipsis if cut. */
function cut(s: string, max: number): string {
  const chars = Array.from(s.length > max * 2 ? s.slice(0, max * 2) : s)
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : chars.join('')
}

export function argsPreview(raw: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    parsed = undefined
  }
  const text =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? Object.entries(parsed)
          .map(([k, v]) => `${k}: ${valueText(v)}`)
          .join(' · ')
      : raw
  return cut(text.replace(/\s+/g, ' ').trim(), MAX)
}
