/**
 * A search snippet read as plain text: the store's snippet is raw message text, so a hit inside a tool call's
 * JSON arguments or a Markdown reply showed `{"command": "…"}`, `**bold**` and `\n` escapes. Markup and JSON
 * punctuation go; the words, and which of them are hits, stay.
 */
export function plainSnippet(parts: ReadonlyArray<{ text: string; hit: boolean }>): { text: string; hit: boolean }[] {
  const out = parts.map((p) => ({
    hit: p.hit,
    text: p.hit
      ? p.text
      : p.text
          .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](url) → text
          .replace(/\\[nrt]/g, ' ') // JSON escapes of newlines and tabs
          .replace(/\\"/g, '"')
          .replace(/"([A-Za-z_][\w-]*)"\s*:\s*/g, '$1: ') // "key": → key:
          .replace(/[{}[\]]+/g, ' ')
          .replace(/"\s*,\s*/g, ', ')
          .replace(/"/g, '')
          .replace(/(\*\*|__|~~|`+)/g, '')
          .replace(/(^|\n)\s*(#{1,6}\s+|[-*+]\s+\[[ xX]\]\s+|>\s+|\|)/g, '$1')
          .replace(/\s*\|\s*/g, ' · ')
          .replace(/\s+/g, ' ')
  }))
  if (out.length) {
    out[0]!.text = out[0]!.text.trimStart()
    out[out.length - 1]!.text = out[out.length - 1]!.text.trimEnd()
  }
  return out.filter((p) => p.text !== '')
}
