/**
 * A reply in a messaging chat carries delivery tags for upstream's gateway (gateway/platforms/base.py, extract_media):
 * a `MEDIA:<path>` line sends that file as an attachment, and `[[audio_as_voice]]` / `[[as_document]]` say how. The
 * gateway takes them out of the text the chat gets (golden: test/fixtures/upstream/reply-media); the transcript shows
 * a tag line as the attachment it was and drops the directives. A tag stays text where the gateway leaves it: inside
 * a fenced code block, inline code or a quote, a relative path, an extension it does not send. A tag in the middle
 * of a sentence also stays text here (the gateway sends it too).
 */

export type ReplyPart = { kind: 'text'; text: string } | { kind: 'media'; path: string; voice: boolean }

/** The extensions upstream's gateway delivers (its MEDIA_DELIVERY_EXTS). */
const DELIVERED = new Set(
  (
    'png jpg jpeg gif webp bmp tiff svg mp4 mov avi mkv webm mp3 wav ogg opus m4a flac pdf docx doc odt rtf txt md ' +
    'epub xlsx xls ods csv tsv json xml yaml yml pptx ppt odp key zip tar gz tgz bz2 xz 7z rar apk ipa html htm'
  ).split(' ')
)
const DIRECTIVES = /\[\[(?:audio_as_voice|as_document)\]\]/g
/** A line holding one tag opens `MEDIA:` (the tag optionally in double or single quotes); the path follows. */
const TAG_OPEN = /^(["']?)MEDIA:/i
const FENCE = /^\s*(```|~~~)/

/** The file a tag names, or null when the gateway would not send it (a relative path, an unknown extension). */
function taggedPath(raw: string): string | null {
  let p = raw.trim()
  if (p.length >= 2 && p[0] === p[p.length - 1] && '`"\''.includes(p[0]!)) p = p.slice(1, -1).trim()
  if (!/^(?:~\/|\/|[A-Za-z]:[\\/])/.test(p)) return null
  const ext = /\.([A-Za-z0-9]+)$/.exec(p)?.[1]?.toLowerCase()
  return ext && DELIVERED.has(ext) ? p : null
}

/** The file a line holding only a tag sends, else null. */
function tagLinePath(line: string): string | null {
  const t = line.trim()
  const open = TAG_OPEN.exec(t)
  if (!open) return null
  const quote = open[1]!
  if (quote && !t.endsWith(quote)) return null
  return taggedPath(t.slice(open[0].length, quote ? -1 : undefined))
}

/** The reply as text and attachments, in order; one text part when it holds no tag. */
export function replyParts(text: string): ReplyPart[] {
  if (!text.includes('MEDIA:') && !text.includes('[[')) return [{ kind: 'text', text }]
  const voice = text.includes('[[audio_as_voice]]')
  const out: ReplyPart[] = []
  let lines: string[] = []
  const flush = () => {
    const t = lines.join('\n')
    if (t.trim()) out.push({ kind: 'text', text: t })
    lines = []
  }
  let fenced = false
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced
    if (fenced || FENCE.test(line)) {
      lines.push(line)
      continue
    }
    const path = tagLinePath(line)
    if (path) {
      flush()
      out.push({ kind: 'media', path, voice })
      continue
    }
    const bare = line.replace(DIRECTIVES, '')
    if (bare !== line && !bare.trim()) continue
    lines.push(bare)
  }
  flush()
  return out
}
