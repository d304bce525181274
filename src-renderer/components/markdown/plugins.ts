/**
 * Small unified plugins for the transcript's Markdown. Safety model: raw HTML in a message is shown as
 * literal text (never parsed into elements), so <script>, <iframe> and on* attributes cannot reach the DOM;
 * link URLs go through react-markdown's defaultUrlTransform (javascript:, data: … dropped).
 */
import { highlightParts } from '../../lib/highlight'

interface Node {
  type: string
  value?: string
  tagName?: string
  children?: Node[]
  properties?: Record<string, unknown>
}

/** remark: `html` nodes (block and inline) become plain text, so the reader sees the markup instead of losing it. */
export function remarkHtmlAsText() {
  return (tree: Node) => {
    const walk = (n: Node) => {
      if (n.type === 'html') n.type = 'text'
      n.children?.forEach(walk)
    }
    walk(tree)
  }
}

/** rehype: wrap search-term matches in <mark>, outside code (a hit inside code is still shown, just unmarked). */
export function rehypeMarkTerms(terms: string[]) {
  return () => (tree: Node) => {
    if (!terms.length) return
    const walk = (n: Node) => {
      if (!n.children || n.tagName === 'code' || n.tagName === 'pre') return
      n.children = n.children.flatMap((c): Node[] => {
        if (c.type !== 'text' || !c.value) {
          walk(c)
          return [c]
        }
        return highlightParts(c.value, terms).map((p) =>
          p.hit
            ? { type: 'element', tagName: 'mark', properties: {}, children: [{ type: 'text', value: p.text }] }
            : { type: 'text', value: p.text }
        )
      })
    }
    walk(tree)
  }
}

/** Plain text of a hast subtree (what "Copy" puts on the clipboard). */
export function hastText(n: Node | undefined): string {
  if (!n) return ''
  if (n.type === 'text') return n.value ?? ''
  return (n.children ?? []).map(hastText).join('')
}
