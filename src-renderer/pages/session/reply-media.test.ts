// Replies holding upstream's gateway delivery tags (scripts/golden/reply_media.py): the transcript showed `MEDIA:`
// lines and `[[audio_as_voice]]` as words of the reply, where the chat got the file and not the tag; then a tag inside
// a sentence, which the gateway sends and takes out as well.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { replyParts } from './reply-media'
import { MessageItem } from './MessageItem'
import type { Message } from '@shared/contract'

interface Case {
  name: string
  reply: string
  media: { path: string; voice: boolean }[]
  text: string
}
const { cases } = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../test/fixtures/upstream/reply-media/cases.json'), 'utf8')
) as { cases: Case[] }
/** Text compared as Markdown reads it: blank-line runs and the ends' whitespace do not count. */
const norm = (t: string) => t.replace(/\n\s*\n/g, '\n').trim()

describe("a reply's delivery tags", () => {
  it("takes out what upstream's gateway takes out, and keeps what it leaves", () => {
    for (const c of cases) {
      const parts = replyParts(c.reply)
      const media = parts.flatMap((p) =>
        p.kind === 'media' ? [{ path: p.path.replace(/^~\//, '/home/user/'), voice: p.voice }] : []
      )
      expect([c.name, media]).toEqual([c.name, c.media])
      const text = parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n')
      expect([c.name, norm(text)]).toEqual([c.name, norm(c.text)])
    }
    // a tag inside a sentence: the gateway sends that file too, and the sentence goes on without it; the file is shown
    // after the line that held it
    expect(replyParts(cases.find((c) => c.name === 'mid-sentence-two')!.reply)).toEqual([
      { kind: 'text', text: 'Before , both sent.' },
      { kind: 'media', path: '/tmp/a.png and after MEDIA:/tmp/b.pdf', voice: false },
      { kind: 'text', text: 'Next line.' }
    ])
  })

  it('shows each file as an attachment in the transcript, not the tag', () => {
    const reply = cases.find((c) => c.name === 'voice')!.reply
    const m = { id: 1, role: 'assistant', content: reply, timestamp: 1796000000 } as unknown as Message
    const html = renderToStaticMarkup(createElement(MessageItem, { m, focused: false }))
    expect(html).toContain('data-testid="reply-media"')
    expect(html).toContain('voice message · <span class="mono">/home/user/.hermes/cache/audio/tts_20260101_120000.ogg')
    expect(html).not.toContain('MEDIA:')
    expect(html).not.toContain('[[audio_as_voice]]')
    expect(html).toContain('Here is the summary as audio.')
    const mid = { ...m, content: cases.find((c) => c.name === 'mid-sentence')!.reply } as Message
    const sentence = renderToStaticMarkup(createElement(MessageItem, { m: mid, focused: false }))
    expect(sentence).toContain('attachment · <span class="mono">/tmp/chart.png</span>')
    expect(sentence).toContain('The chart is at  if you need it.')
    expect(sentence).not.toContain('MEDIA:')
    // a directive with no file left to send is not shown either
    const bare = { ...m, content: '[[as_document]]\nNothing to send after all.' } as Message
    expect(renderToStaticMarkup(createElement(MessageItem, { m: bare, focused: false }))).not.toContain('[[')
  })
})
