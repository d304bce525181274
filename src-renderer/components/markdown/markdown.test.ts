import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { highlightAs } from './code-highlight'
import { Markdown } from './Markdown'
import { Highlighted } from '../Snippet'

const html = (text: string, terms?: string[], saved = false) =>
  renderToStaticMarkup(createElement(Markdown, { text, terms, saved }))

describe('Markdown renderer', () => {
  it('renders GFM: fenced code as <pre><code> with highlighting, tables, task lists', () => {
    const out = html('```ts\nconst x: number = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n')
    expect(out).toMatch(/<pre tabindex="0"><code class="hljs language-ts">/)
    expect(out).toContain('<span class="hljs-keyword">const</span>')
    expect(out).toMatch(/<table>.*<th>a<\/th>.*<td>2<\/td>/s)
    expect(out.match(/type="checkbox"/g)).toHaveLength(2)
    expect(out).toMatch(/checked=""/)
  })

  it('strips script, iframe and on* attributes: raw HTML is shown as text, never as elements', () => {
    const out = html(
      '<script>alert(1)</script>\n\n<iframe src="https://evil.example"></iframe>\n\nhi <img src=x onerror="alert(2)"> <b onclick="x()">bold</b>'
    )
    expect(out).not.toMatch(/<script/i)
    expect(out).not.toMatch(/<iframe/i)
    expect(out).not.toMatch(/<img/i)
    expect(out).not.toMatch(/<b[ >]/i)
    expect(out).not.toMatch(/<[^>]*\son\w+=/i) // no element carries an on* attribute
    // the markup is still visible to the reader, escaped
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  it('drops javascript: link targets and opens links outside the app', () => {
    const out = html('[click](javascript:alert(1)) and [docs](https://example.com)')
    expect(out).not.toMatch(/javascript:/i)
    expect(out).toContain('href="https://example.com" target="_blank" rel="noopener noreferrer"')
  })

  it('marks search terms outside code only', () => {
    const out = html('the rollback plan\n\n```\nrollback()\n```', ['rollback'])
    expect(out).toContain('the <mark>rollback</mark> plan')
    expect(out).toMatch(/<code>rollback\(\)/)
  })

  it('renders an unfinished fence (mid-stream) as a code block already', () => {
    expect(html('Here:\n\n```python\nprint("hi")')).toMatch(/<pre tabindex="0"><code class="hljs language-python">/)
  })

  it('shows code highlight.js would rescan from every position (a long stretch of words) as plain code, whole', () => {
    const words = 'a '.repeat(5_000)
    expect(html(`\`\`\`c\n${words}\n\`\`\``)).toContain(
      `<pre tabindex="0"><code class="language-c">${words}\n</code></pre>`
    )
    expect(highlightAs('c', words)).toBeNull()
    expect(highlightAs('ini', '-'.repeat(5_000))).toBeNull()
    // ordinary code, however long, is highlighted
    const lines = 'int x = 1; // one\n'.repeat(2_000)
    expect(html(`\`\`\`c\n${lines}\`\`\``)).toMatch(
      /<pre tabindex="0"><code class="hljs language-c"><span class="hljs-type">int<\/span>/
    )
    expect(highlightAs('c', lines)).not.toBeNull()
  })

  it('leaves a fence in a language it does not know as plain code', () => {
    const out = html('```nosuchlang\nx = 1\n```')
    expect(out).toContain('<pre tabindex="0"><code class="language-nosuchlang">x = 1\n</code></pre>')
  })

  it('a saved body comes back the same from the cache, and marked terms are not shared with the unmarked one', () => {
    const text = '**bold** rollback\n\n```ts\nconst a = 1\n```'
    const first = html(text, undefined, true)
    expect(html(text, undefined, true)).toBe(first)
    expect(html(text, undefined, false)).toBe(first)
    expect(html(text, ['rollback'], true)).toContain('<mark>rollback</mark>')
    expect(html(text, undefined, true)).not.toContain('<mark>')
  })
})

// markdown-guard.ts: shapes the parser rescans or recurses on (a reply is anyone's text) are shown as plain text,
// whole; code and ordinary replies are unaffected. Timings live in the bench (`npm run bench -- --only text`).
describe('Markdown guard', () => {
  it('shows deeply nested containers, piles of brackets or emphasis marks as plain text, every character kept', () => {
    for (const text of ['1. '.repeat(4_000), '> '.repeat(5_000), ']'.repeat(5_000), '*_'.repeat(3_000)]) {
      const out = html(text)
      expect(out).toContain('data-testid="markdown-plain"')
      expect(out).not.toMatch(/<(ol|ul|blockquote|em|strong)[ >]/)
    }
    const many = `${'x] '.repeat(3_000)}end`
    expect(html(many)).toContain('end</p>')
  })

  it('counts outside fenced code only, and leaves ordinary nesting and emphasis to Markdown', () => {
    const code = html(`\`\`\`js\n${'[a[0]], '.repeat(1_500)}\n\`\`\`\n\nafter *this*`)
    expect(code).toMatch(/<pre tabindex="0"><code class="hljs language-js">/)
    expect(code).toContain('<em>this</em>')
    const nested = html('> quote\n>\n> - item\n>   1. deeper\n\n**bold** and _em_')
    expect(nested).toMatch(/<blockquote>.*<ul>.*<ol>/s)
    expect(nested).toContain('<strong>bold</strong>')
  })

  it("draws a reply's control characters as their pictures (upstream stores a colour sequence as the model wrote it)", () => {
    // scripts/golden/control_chars.py: the reply row as upstream stored it
    const { rows } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../test/fixtures/upstream/control-chars/rows.json'), 'utf8')
    ) as { rows: Array<{ role: string; content: string | null; tool_calls: unknown }> }
    const reply = rows.find((r) => r.role === 'assistant' && !r.tool_calls)!.content!
    expect(reply).toContain('\u001b[32m')
    const out = html(reply, undefined, true)
    expect(out).toContain('Done: \u241b[32mgreen\u241b[0m means ok.')
    // a user's text (shown plain) the same way, NUL included
    const plain = renderToStaticMarkup(createElement(Highlighted, { text: 'a\u0000b\u001bc', terms: ['b'] }))
    expect(plain).toBe('a\u2400<mark>b</mark>\u241bc')
  })
})
