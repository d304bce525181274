/**
 * A reply in a messaging chat carries delivery tags for upstream's gateway (gateway/platforms/base.py, extract_media):
 * a `MEDIA:<path>` tag, on a line of its own or inside a sentence, sends that file as an attachment, and
 * `[[audio_as_voice]]` / `[[as_document]]` say how. The gateway takes them out of the text the chat gets (golden:
 * test/fixtures/upstream/reply-media); the transcript shows each tag as the attachment it was, after the line that held
 * it, and drops the directives. A tag stays text where the gateway leaves it: inside a fenced code block, inline code
 * or a quote, in a JSON string value, a bare relative path, an extension it does not send, a path ending in a stop.
 * (An extension-less path the gateway sends only when the file exists there; the transcript cannot tell, so it stays.)
 */

export type ReplyPart = { kind: 'text'; text: string } | { kind: 'media'; path: string; voice: boolean }

/** The extensions upstream's gateway delivers (its MEDIA_DELIVERY_EXTS), longest first as its pattern tries them. */
const DELIVERED = (
  'png jpg jpeg gif webp bmp tiff svg mp4 mov avi mkv webm mp3 wav ogg opus m4a flac pdf docx doc odt rtf txt md ' +
  'epub xlsx xls ods csv tsv json xml yaml yml pptx ppt odp key zip tar gz tgz bz2 xz 7z rar apk ipa html htm'
)
  .split(' ')
  .sort((a, b) => b.length - a.length)
/**
 * A tag as the gateway finds it: a quoted or backticked path, or an absolute one (`/`, `~/`, `C:\`) running, across
 * spaces if need be, to the first delivered extension followed by a space, a closing mark or the end.
 */
const TAG = new RegExp(
  '[`"\']?MEDIA:\\s*(`[^`\\n]+`|"[^"\\n]+"|\'[^\'\\n]+\'|(?:~/|/|[A-Za-z]:[/\\\\])\\S+(?:[^\\S\\n]+\\S+)*?\\.(?:' +
    DELIVERED.join('|') +
    '))(?=[\\s`"\',;:)\\]}]|$)[`"\']?',
  'gi'
)
const DIRECTIVES = /\[\[(?:audio_as_voice|as_document)\]\]/g

/** The text with the places the gateway never reads a tag in blanked, length kept (offsets stay valid). */
function masked(text: string): string {
  const chars = text.split('')
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (chars[i] !== '\n') chars[i] = ' '
  }
  // code blocks, inline code (not a backticked tag path), quote lines
  for (const m of text.matchAll(/```[^\n]*\n[\s\S]*?```/g)) blank(m.index, m.index + m[0].length)
  for (const m of text.matchAll(/`[^`\n]+`/g))
    if (!/MEDIA:\s*$/.test(text.slice(Math.max(0, m.index - 20), m.index))) blank(m.index, m.index + m[0].length)
  for (const m of text.matchAll(/^>.*$/gm)) blank(m.index, m.index + m[0].length)
  // a JSON string value holding a bare tag path is stored text (a tool result quoted back), not a tag
  if (text.includes('"'))
    for (const m of text.matchAll(/(?<=[:,{[])\s*"((?:[^"\\\n]|\\.)*)"/g))
      if (/MEDIA:\s*(?:~\/|\/|[A-Za-z]:[/\\])/.test(m[1]!)) {
        const end = m.index + m[0].length - 1
        blank(end - m[1]!.length, end)
      }
  return chars.join('')
}

/** A tag's path without its quotes and the punctuation after it, as the gateway reads it. */
function tagPath(raw: string): string {
  let p = raw.trim()
  if (p.length >= 2 && p[0] === p[p.length - 1] && '`"\''.includes(p[0]!)) p = p.slice(1, -1).trim()
  return p.replace(/^[`"']+/, '').replace(/[`"',.;:)}\]]+$/, '')
}

/** The reply as text and attachments, in order; one text part when it holds no tag. */
export function replyParts(text: string): ReplyPart[] {
  if (!text.includes('MEDIA:') && !text.includes('[[')) return [{ kind: 'text', text }]
  const voice = text.includes('[[audio_as_voice]]')
  const cleaned = text.replace(DIRECTIVES, '')
  const tags = [...masked(cleaned).matchAll(TAG)]
    .map((m) => ({ from: m.index, to: m.index + m[0].length, path: tagPath(m[1]!) }))
    .filter((t) => t.path)
  if (!tags.length) return [{ kind: 'text', text: cleaned }]
  // the text without its tags, and where in it each tag was
  let kept = ''
  let last = 0
  const marks: Array<{ at: number; path: string }> = []
  for (const t of tags) {
    kept += cleaned.slice(last, t.from)
    marks.push({ at: kept.length, path: t.path })
    last = t.to
  }
  kept += cleaned.slice(last)
  const out: ReplyPart[] = []
  let lines: string[] = []
  const flush = () => {
    const t = lines.join('\n')
    if (t.trim()) out.push({ kind: 'text', text: t })
    lines = []
  }
  // a tag's file comes after the line that held it: alone on it, in its place; inside a sentence, after the sentence
  let at = 0
  let next = 0
  for (const line of kept.split('\n')) {
    const end = at + line.length
    const here: typeof marks = []
    while (next < marks.length && marks[next]!.at <= end) here.push(marks[next++]!)
    if (!here.length) lines.push(line)
    else {
      if (line.trim()) lines.push(line)
      flush()
      for (const m of here) out.push({ kind: 'media', path: m.path, voice })
    }
    at = end + 1
  }
  flush()
  return out
}
