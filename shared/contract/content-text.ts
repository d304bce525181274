/**
 * How a multimodal message reads as text (hermes-spec §1.6): text parts as they are, every other part as a
 * placeholder `[image: <name, mime or file name>, <size>]`, one part per line. One rule for the store (what `show`,
 * the transcript and exports print) and the API server (the text a resent conversation is matched on), so a stored
 * image turn is recognised when a client sends it again.
 */

/** Approximate decoded size of a data: URL's base64 payload. */
function dataUrlInfo(url: string): { mime: string; bytes: number } | null {
  const m = /^data:([^;,]*)(;base64)?,/.exec(url)
  if (!m) return null
  const body = url.length - m[0].length
  return { mime: m[1] || 'application/octet-stream', bytes: m[2] ? Math.floor((body * 3) / 4) : body }
}

const size = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} B`

function placeholder(part: Record<string, unknown>): string {
  const kind = String(part.type ?? 'attachment').replace(/_url$|^input_/, '')
  const ref = (part.image_url ?? part.file ?? part.input_audio ?? part) as Record<string, unknown> | string
  const url = typeof ref === 'string' ? ref : typeof ref?.url === 'string' ? ref.url : String(part.image_url ?? '')
  const name = [part.name, part.filename, typeof ref === 'object' ? ref?.filename : undefined].find(
    (x) => typeof x === 'string' && x
  ) as string | undefined
  const info = dataUrlInfo(url)
  const label = name ?? (info ? info.mime : url.split(/[?#]/)[0]!.split('/').pop() || kind)
  return `[${kind}: ${label}${info ? `, ${size(info.bytes)}` : ''}]`
}

/** The parts of one message as text for people. Never a raw NUL. */
export function partsText(parts: readonly unknown[]): string {
  return parts
    .map((p) => {
      if (typeof p === 'string') return p
      if (!p || typeof p !== 'object') return String(p)
      const o = p as Record<string, unknown>
      if ((o.type === 'text' || o.type === 'input_text') && typeof o.text === 'string') return o.text
      return placeholder(o)
    })
    .join('\n')
}

/** What upstream's agent flush stores for each image part of a message (`run_agent._flush_messages_to_session_db`). */
export const SCREENSHOT_PLACEHOLDER = '[screenshot]'

const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image'])

/**
 * A list of content parts as upstream's agent flush stores a turn's message: its text parts joined by "\n", each
 * image part as `[screenshot]`, any other part left out; null when nothing is left. The images themselves are
 * only ever sent to the provider, never stored (no base64 in state.db or its FTS indexes).
 */
export function storedPartsText(parts: readonly unknown[]): string | null {
  const lines: string[] = []
  for (const p of parts) {
    if (!p || typeof p !== 'object') continue
    const o = p as Record<string, unknown>
    if (o.type === 'text') lines.push(o.text === undefined ? '' : o.text === null ? 'None' : String(o.text))
    else if (typeof o.type === 'string' && IMAGE_PART_TYPES.has(o.type)) lines.push(SCREENSHOT_PLACEHOLDER)
  }
  return lines.length ? lines.join('\n') : null
}
