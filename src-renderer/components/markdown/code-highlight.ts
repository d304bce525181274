/**
 * rehype: highlight fenced code that names its language (`language-x`), like rehype-highlight with
 * `detect: false`, but with ONE lowlight instance for the whole renderer. rehype-highlight builds a new
 * instance per processor, and react-markdown builds a processor per render: every message re-registered
 * ~37 grammars and recompiled them on first use (~8 ms a message, most of a transcript's first paint).
 */
import { common, createLowlight } from 'lowlight'
import { hastText } from './plugins'

interface Node {
  type: string
  tagName?: string
  children?: Node[]
  properties?: Record<string, unknown>
}

let shared: ReturnType<typeof createLowlight> | null = null
const lowlight = () => (shared ??= createLowlight(common))

function languageOf(code: Node): string | null {
  const cls = code.properties?.className
  if (!Array.isArray(cls)) return null
  for (const c of cls.map(String)) {
    if (c === 'no-highlight' || c === 'nohighlight') return null
    if (c.startsWith('language-')) return c.slice(9)
    if (c.startsWith('lang-')) return c.slice(5)
  }
  return null
}

export function rehypeCodeHighlight() {
  return (tree: Node) => {
    const walk = (n: Node) => {
      for (const c of n.children ?? []) {
        if (n.tagName === 'pre' && c.tagName === 'code') highlight(c)
        else walk(c)
      }
    }
    walk(tree)
  }
}

function highlight(code: Node): void {
  const lang = languageOf(code)
  if (!lang || !lowlight().registered(lang)) return // unknown language: plain text, as before
  const cls = (code.properties!.className as string[]).map(String)
  if (!cls.includes('hljs')) code.properties!.className = ['hljs', ...cls]
  const out = lowlight().highlight(lang, hastText(code as never))
  if (out.children.length) code.children = out.children as Node[]
}

interface HastNode {
  type: string
  value?: string
  properties?: { className?: unknown }
  children?: HastNode[]
}

/**
 * `code` highlighted as `lang` (a grammar name or alias such as a file extension: py, ts, md), as hast for the
 * caller to render, or null when no grammar of the bundle knows it.
 */
export function highlightAs(lang: string, code: string): HastNode[] | null {
  const l = lang.toLowerCase()
  if (!l || !lowlight().registered(l)) return null
  return lowlight().highlight(l, code).children as HastNode[]
}
export type { HastNode }
