/**
 * The lexer behind parseQuery (search-query.ts): typed text → words, phrases, operators, NEAR groups and column
 * filters, with `+` phrase joins done and parentheses balanced. What FTS5 has no meaning for is read the likely way
 * and said in `notes`; what cannot be read at all throws a SyntaxError whose message the user sees.
 */
import type { Columns, Near, Term } from './search-query'

export const MAX_TERMS = 32
const WORDISH = /[\p{L}\p{N}\p{S}\p{Extended_Pictographic}]/u

export type Tok = { op: 'OR' | 'AND' | 'NOT' | '(' | ')' | '+' } | { op: 'col'; columns: Columns } | Term | Near

const LEADING_PLUS = /^\+(?=[\p{L}\p{N}])/u
const LEADING_MINUS = /^-+(?=[\p{L}\p{N}])/u
/** `name:` / `-name :` at a word's start: FTS5's column filter when the index has that column. */
const COLUMN = /^(-?)([\p{L}\p{N}_]+)\s*:/u
const NEAR_SHAPE = 'as in NEAR(heater theater, 3)'

interface Ctx {
  notes: string[]
  /** The word index's columns (FTS5 column filters name these); empty without a word index. */
  columns: string[]
  terms: number
  /** The query went past MAX_TERMS (said once). */
  cut?: boolean
}

const isTerm = (t: Tok | undefined): t is Term => t !== undefined && 'kind' in t && t.kind === 'term'
export const isLeaf = (t: Tok | undefined): t is Term | Near => t !== undefined && 'kind' in t

/** The columns a filter leaves (`-` leaves the others); a name the index lacks is malformed, as in FTS5. */
function columnFilter(names: string[], negate: boolean, ctx: Ctx): Columns {
  const known = names.map((n) => {
    const c = ctx.columns.find((k) => k.toLowerCase() === n.toLowerCase())
    if (c === undefined)
      throw new SyntaxError(
        ctx.columns.length
          ? `"${n}:" names no column of the message index (it has ${ctx.columns.join(', ')}).`
          : `"${n}:" is a column filter, and this home has no word index to filter.`
      )
    return c
  })
  const only = negate ? ctx.columns.filter((c) => !known.includes(c)) : [...new Set(known)]
  return { only, all: ctx.columns }
}

/** Index of the ")" closing the "(" at `open`, quotes skipped; -1 when none. */
function closing(text: string, open: number): number {
  let quoted = false
  for (let j = open + 1; j < text.length; j++) {
    if (text[j] === '"') quoted = !quoted
    else if (text[j] === ')' && !quoted) return j
  }
  return -1
}

/** FTS5's `NEAR(phrase phrase …[, N])`; `inner` is the text between its parentheses. */
function nearGroup(inner: string, ctx: Ctx): Term | Near {
  let comma = -1
  let quoted = false
  for (let j = 0; j < inner.length; j++) {
    if (inner[j] === '"') quoted = !quoted
    else if (inner[j] === ',' && !quoted) comma = j
  }
  let distance: number | null = null
  if (comma >= 0) {
    const n = inner.slice(comma + 1).trim()
    if (!/^\d+$/.test(n)) throw new SyntaxError(`NEAR takes a whole number of words after its comma, ${NEAR_SHAPE}.`)
    distance = Number(n)
    inner = inner.slice(0, comma)
  }
  const toks = joinPhrases(tokenize(inner, ctx, true), ctx.notes)
  if (!toks.every((t) => isTerm(t) && !t.initial))
    throw new SyntaxError(`NEAR(…) holds only words and phrases (no operators, parentheses or ^), ${NEAR_SHAPE}.`)
  const items = toks as Term[]
  if (!items.length) throw new SyntaxError(`NEAR() has no word inside; ${NEAR_SHAPE}.`)
  // one phrase is near itself: FTS5 matches it as the phrase alone
  return items.length === 1 ? items[0]! : { kind: 'near', items, distance }
}

function tokenize(text: string, ctx: Ctx, inNear = false): Tok[] {
  const out: Tok[] = []
  const plus: string[] = []
  const minus: string[] = []
  const asText: string[] = []
  const re = /([+^]?)"([^"]*)"(\*?)|([()])|(-?\{[^}"]*\}\s*:)|([^\s()"]+)/g
  for (let m = re.exec(text); m && ctx.terms < MAX_TERMS; m = re.exec(text)) {
    if (m[4]) {
      out.push({ op: m[4] as '(' | ')' })
      continue
    }
    if (m[5]) {
      const names = m[5].replace(/^-/, '').replace(/[{}:]/g, ' ').trim().split(/\s+/).filter(Boolean)
      if (!names.length) throw new SyntaxError('A "{}:" column filter names no column.')
      out.push({ op: 'col', columns: columnFilter(names, m[5].startsWith('-'), ctx) })
      continue
    }
    let word = m[6]
    if (word === 'OR' || word === 'AND' || word === 'NOT' || word === '+') {
      out.push({ op: word })
      continue
    }
    if (word === 'NEAR' && !inNear && /^\s*\(/.test(text.slice(re.lastIndex))) {
      const open = text.indexOf('(', re.lastIndex)
      const close = closing(text, open)
      if (close < 0) ctx.notes.push('A "NEAR(" was not closed: read as if the query ended with ")".')
      out.push(nearGroup(text.slice(open + 1, close < 0 ? undefined : close), ctx)) // its phrases count as terms
      re.lastIndex = close < 0 ? text.length : close + 1
      continue
    }
    if (word !== undefined && !inNear) {
      const col = COLUMN.exec(text.slice(m.index))
      if (col && ctx.columns.some((c) => c.toLowerCase() === col[2]!.toLowerCase())) {
        out.push({ op: 'col', columns: columnFilter([col[2]!], col[1] === '-', ctx) })
        re.lastIndex = m.index + col[0].length
        continue
      }
      // FTS5 would fail with "no such column": the likelier meaning is the text itself (localhost:8080, 12:30)
      if (col && !col[1]) asText.push(`${col[2]}:`)
    }
    let mark = m[1] ?? ''
    if (word !== undefined) {
      if (word.startsWith('^') && WORDISH.test([...word][1] ?? '')) mark = '^'
      else if (LEADING_PLUS.test(word)) mark = '+'
      else if (LEADING_MINUS.test(word)) mark = '-'
      if (mark === '-') {
        minus.push(word)
        word = word.replace(LEADING_MINUS, '')
      } else if (mark) word = word.slice(1)
    }
    let body = (m[2] ?? word!).replace(/"/g, '').trim().replace(/\s+/g, ' ')
    let prefix = m[3] === '*'
    if (word !== undefined && body.endsWith('*')) {
      body = body.replace(/\*+$/, '')
      prefix = true
    }
    if (!WORDISH.test(body)) continue // pure punctuation matches nothing in any index
    if (mark === '+') plus.push(m[0])
    out.push({ kind: 'term', text: body, prefix, ...(mark === '^' ? { initial: true } : {}) })
    ctx.terms++
  }
  if (plus.length)
    ctx.notes.push(`A leading + adds nothing (every word must match already): read ${plus.join(', ')} without it.`)
  if (minus.length)
    ctx.notes.push(
      `A leading - does not leave a word out (write NOT for that): read ${minus.join(', ')} as ${minus.map((w) => w.replace(LEADING_MINUS, '')).join(', ')}.`
    )
  if (asText.length)
    ctx.notes.push(
      `${asText.join(', ')} names no column of the message index${ctx.columns.length ? ` (it has ${ctx.columns.join(', ')})` : ''}: read as text.`
    )
  if (ctx.terms >= MAX_TERMS && !ctx.cut && re.exec(text)) {
    ctx.cut = true
    ctx.notes.push(`Only the first ${MAX_TERMS} terms were searched; the rest of the query was left out.`)
  }
  if (ctx.terms >= MAX_TERMS && !inNear) while (out.length && !isLeaf(out[out.length - 1])) out.pop() // cut after the 32nd term
  return out
}

/** FTS5's `a + b`: the two sides joined into one phrase; a `+` without a word on both sides is left out. */
function joinPhrases(toks: Tok[], notes: string[]): Tok[] {
  const out: Tok[] = []
  let stray = false
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!
    if ('kind' in t || t.op !== '+') {
      out.push(t)
      continue
    }
    const prev = out[out.length - 1]
    const next = toks[i + 1]
    if (isTerm(prev) && isTerm(next) && !next.initial) {
      out[out.length - 1] = { ...prev, text: `${prev.text} ${next.text}`, prefix: next.prefix }
      i++
    } else stray = true
  }
  if (stray)
    notes.push('A "+" joins the words on its two sides into a phrase; one without a word on a side was left out.')
  return out
}

/** Unbalanced parentheses balanced: a "(" at the start for each stray ")", a ")" at the end for each unclosed "(". */
function balance(toks: Tok[], notes: string[]): Tok[] {
  let depth = 0
  let missing = 0
  for (const t of toks) {
    if ('kind' in t) continue
    if (t.op === '(') depth++
    else if (t.op === ')') {
      if (depth) depth--
      else missing++
    }
  }
  if (missing) notes.push('A ")" had no "(" before it: read as if the query started with one.')
  if (depth) notes.push('A "(" was not closed: read as if the query ended with ")".')
  const open: Tok[] = Array.from({ length: missing }, () => ({ op: '(' }))
  const close: Tok[] = Array.from({ length: depth }, () => ({ op: ')' }))
  return [...open, ...toks, ...close]
}

/** Why a query with no word in it finds nothing, in one line (FTS5 would fail or match nothing). */
export function noWord(input: string, toks: Tok[]): string | null {
  const typed = input.trim()
  if (!typed) return null
  if (/^\*+$/.test(typed))
    return '"*" marks a word prefix (heat* finds heater): on its own it names no word to search for.'
  if (toks.some((t) => !('kind' in t) && t.op === 'col'))
    return 'A column filter (content:) needs a word after it, as in content:heater.'
  if (toks.length) return 'Search needs at least one word besides OR / AND / NOT.'
  return `"${typed.slice(0, 40)}" has no word to search for: punctuation alone (+ - * …) is not indexed, and FTS5 reads + and - as operators.`
}

/** Tokens of `text` with `+` joins done and parentheses balanced; throws a SyntaxError on what cannot be read. */
export function lex(text: string, columns: string[]): { toks: Tok[]; notes: string[] } {
  const ctx: Ctx = { notes: [], columns, terms: 0 }
  return { toks: balance(joinPhrases(tokenize(text, ctx), ctx.notes), ctx.notes), notes: ctx.notes }
}
