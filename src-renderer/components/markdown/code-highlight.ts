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
  const text = hastText(code as never)
  if (!affordable(text)) return // plain text, as an unknown language
  const cls = (code.properties!.className as string[]).map(String)
  if (!cls.includes('hljs')) code.properties!.className = ['hljs', ...cls]
  const out = lowlight().highlight(lang, text)
  if (out.children.length) code.children = out.children as Node[]
}

/**
 * Whether highlight.js can take `code` in about linear time. Several grammars (c, cpp, csharp, ts, js, graphql, …)
 * rescan a stretch of words and whitespace from each position in it, ini a run of one character: 10 KB of `a ` as
 * ```c is 0.2 s, 200 KB minutes, all on the page's one thread (a reply or a file a tool read is anyone's text).
 * Each stretch costs its length squared, so the sum of squares is the budget: real code of 200 KB sums to under 7M
 * (typescript.js, sqlite3.c, run_agent.py), a budget-sized hostile text highlights in tens of milliseconds.
 */
const STRETCH_BUDGET = 16_000_000
const RUN_BUDGET = 4_000_000
const WORD_OR_SPACE = /[A-Za-z0-9_ \t\r\n]/

function affordable(code: string): boolean {
  let stretch = 0
  let run = 0
  let stretches = 0
  let runs = 0
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!
    stretch = WORD_OR_SPACE.test(c) ? stretch + 1 : 0
    run = i > 0 && c === code[i - 1] ? run + 1 : 1
    // (n + 1)² - n² = 2n + 1: the squares summed as each stretch and run grows
    if (stretch) stretches += 2 * stretch - 1
    runs += 2 * run - 1
    if (stretches > STRETCH_BUDGET || runs > RUN_BUDGET) return false
  }
  return true
}

interface HastNode {
  type: string
  value?: string
  properties?: { className?: unknown }
  children?: HastNode[]
}

/**
 * `code` highlighted as `lang` (a grammar name or alias such as a file extension: py, ts, md), as hast for the
 * caller to render, or null when no grammar of the bundle knows it or the text is not affordable (see above).
 */
export function highlightAs(lang: string, code: string): HastNode[] | null {
  const l = lang.toLowerCase()
  if (!l || !lowlight().registered(l) || !affordable(code)) return null
  return lowlight().highlight(l, code).children as HastNode[]
}
export type { HastNode }
