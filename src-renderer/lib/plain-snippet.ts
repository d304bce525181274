/**
 * A search snippet read as plain text: the store's snippet is raw message text, so a hit inside a tool call's
 * JSON arguments or a Markdown reply showed `{"command": "…"}`, `**bold**`, `\n` and `\\u00e9` escapes. Markup and
 * JSON punctuation go; the words, and which of them are hits, stay.
 */
export function plainSnippet(parts: ReadonlyArray<{ text: string; hit: boolean }>): { text: string; hit: boolean }[] {
  const out = parts.map((p) => ({
    hit: p.hit,
    text: p.hit
      ? p.text
      : p.text
          .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // [text](url) → text
          // JSON escapes, once or twice over (a tool call's arguments are JSON inside JSON): newlines and tabs,
          // quotes, and \\uXXXX, which upstream writes for every non-ASCII character
          .replace(/\\+[nrt]/g, ' ')
          .replace(/\\+"/g, '"')
          .replace(/\\+u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
          .replace(/\\+(u[0-9a-fA-F]{0,3})?(?=…?$)/, '') // an escape the snippet's cut split in two
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
