import { createElement, type ReactElement, type ReactNode } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { markdownBlocks } from './markdown-blocks'
import { Markdown, markdownBody } from './Markdown'

const html = (text: string, saved: boolean) => renderToStaticMarkup(createElement(Markdown, { text, saved }))
/** Bodies under 2,000 characters are one block: this one is cut (the text again after a thematic break). */
const SPLIT_PAST = 2_500
const long = (md: string) => {
  let out = md
  while (out.length < SPLIT_PAST) out += `\n\n---\n\n${md}`
  return out
}

const REPORT = `## Findings

The deploy failed on **two** hosts; see the [runbook](https://example.com/runbook).

1. Drain the node
2. Restart the agent

   It takes a minute.

3. Check the logs

- tight
- list

| host | status |
|---|---|
| a1 | ok |
| b2 | failed |

\`\`\`bash
systemctl restart agent

journalctl -u agent --since "5 min ago"
\`\`\`

    indented code

    after a blank line

> a quote
> over two lines

> a second quote

Setext heading
==============

- [x] measured
- [ ] follow up

~~~
tilde fence with \`\`\` inside

and a blank line
~~~

Last paragraph with \`code\` and ~~strike~~.`

describe('a reply cut into Markdown blocks', () => {
  it('renders exactly as the whole text does, streamed or saved', () => {
    const text = long(REPORT)
    const blocks = markdownBlocks(text)
    expect(blocks.length).toBeGreaterThan(20)
    // the reference: the same text parsed whole (an unused link definition renders nothing and keeps it whole)
    const unused = '\n\n[unused]: https://example.com'
    expect(markdownBlocks(text + unused)).toHaveLength(1)
    const whole = html(text + unused, false)
    expect(html(text, true)).toBe(whole)
    expect(html(text, false)).toBe(whole)
  })

  it("never cuts inside a fence, a loose list, indented code or a list item's next paragraph", () => {
    const blocks = markdownBlocks(long(REPORT))
    const fenced = blocks.find((b) => b.includes('systemctl'))!
    expect(fenced).toContain('journalctl')
    expect(blocks.find((b) => b.includes('1. Drain'))).toContain('3. Check the logs')
    expect(blocks.find((b) => b.includes('    indented code'))).toContain('after a blank line')
    expect(blocks.find((b) => b.startsWith('~~~'))).toContain('and a blank line')
  })

  it('keeps text whole where meaning crosses blank lines, and short text whole', () => {
    for (const tail of ['[ref]: https://example.com', '[^1]: a footnote', '<pre>\n\nx\n</pre>', '<?php\n\n?>'])
      expect(markdownBlocks(long(REPORT) + '\n\n' + tail)).toHaveLength(1)
    expect(markdownBlocks(REPORT)).toEqual([REPORT])
  })

  it('an unclosed fence keeps the rest in its block, as the parser reads it to the end', () => {
    const text = long('para') + '\n\n```\ncode\n\nmore code\n\nstill code'
    const blocks = markdownBlocks(text)
    expect(blocks.at(-1)).toBe('```\ncode\n\nmore code\n\nstill code')
    expect(html(text, false)).toMatch(/more code\n\nstill code\n?<\/code><\/pre>/)
  })

  it('a backtick line with a backtick in its info string opens no fence', () => {
    const text = long('para') + '\n\n```a`b\n\nafter\n'
    expect(markdownBlocks(text).at(-1)).toBe('after\n')
  })
})

describe('a streamed reply', () => {
  it('re-parses only its last block on a delta, and its saved message reuses every block', () => {
    const text = long(REPORT)
    const cut = text.lastIndexOf('Last paragraph')
    // the body is <>{blocks as <Fragment>{separator}{tree}</Fragment>}</>: each block's tree, as the body holds it
    const kids = (el: ReactElement) => (el.props as { children: ReactNode[] }).children
    const parts = (el: ReactElement) => kids(el).map((f) => kids(f as ReactElement)[1])
    const early = parts(markdownBody(text.slice(0, cut + 10), [], false))
    const later = parts(markdownBody(text, [], false))
    const saved = parts(markdownBody(text, [], true))
    expect(later.length).toBe(early.length)
    // every block before the growing one is the very tree rendered on the earlier delta
    for (let i = 0; i < early.length - 1; i++) expect(later[i]).toBe(early[i])
    expect(later.at(-1)).not.toBe(early.at(-1))
    // and the saved message renders nothing again: its last block is the only one new to the cache
    for (let i = 0; i < later.length - 1; i++) expect(saved[i]).toBe(later[i])
  })
})

describe('a streamed reply split as it grows', () => {
  it('cuts as a whole read of the same text does, after every delta of any size', () => {
    for (const step of [1, 7, 40]) {
      // its own first line: no split made before is a prefix of it
      const text = `# Streamed ${step}\n\n${long(REPORT)}\n\n1. a\n\n2. b\n\n- c\n\n  d\n\nend`
      const ends: number[] = []
      for (let end = SPLIT_PAST - 600; end <= text.length; end += step) ends.push(end)
      // longest first: a shorter text never extends a longer one, so each of these is read whole
      const whole = new Map([...ends].reverse().map((end) => [end, markdownBlocks(text.slice(0, end))]))
      for (const end of ends) expect(markdownBlocks(text.slice(0, end)), `${step} @${end}`).toEqual(whole.get(end))
    }
  })

  it('does not cut before a line still being written: "1" may become a list item of a loose list', () => {
    const head = long('para')
    expect(markdownBlocks(`${head}\n\nx\n\n1. a\n\n1`).at(-1)).toBe('x\n\n1. a\n\n1')
    expect(markdownBlocks(`${head}\n\nx\n\n1. a\n\n2. b\n`).at(-1)).toBe('x\n\n1. a\n\n2. b\n')
  })
})
