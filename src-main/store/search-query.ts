/**
 * Search input → a small boolean tree with FTS5's query language: `OR`, `AND`, `NOT` (upper case, binary;
 * precedence NOT > AND > OR, implicit AND between terms), parentheses, `"phrase"`, `pre*` (a word prefix),
 * `^word` / `^"phrase"` (FTS5's initial token: at the very start of the message) and `a + b` (FTS5's phrase
 * join: the phrase "a b"); everything else is a literal term (FTS5 syntax never leaks through). Emoji and symbol
 * terms are kept (they are matched as substrings); pure punctuation matches nothing. Input is capped at 2,048
 * characters.
 * Where FTS5 has no meaning for what was typed, the likeliest one is read and said (`notes`): a leading `+` on a
 * word (Google's "must contain", which every word already is) is dropped, and unbalanced parentheses are balanced
 * — a `(` added at the start for a stray `)`, a `)` at the end for an unclosed `(`. Any other malformed query is
 * reported as a one-line message, never thrown.
 */
import { FOLD_SQL, foldCase } from './fold'

export const MAX_FTS5_QUERY_CHARS = 2048
const MAX_TERMS = 32
const WORDISH = /[\p{L}\p{N}\p{S}\p{Extended_Pictographic}]/u

export interface Term {
  kind: 'term'
  text: string
  prefix: boolean
  /** `^`: FTS5's initial token, the term must start the message (or title). */
  initial?: boolean
}
export type Node = Term | { kind: 'and' | 'or'; items: Node[] } | { kind: 'not'; left: Node; right: Node }
export type Parsed =
  | {
      ok: true
      tree: Node
      terms: Term[]
      /** How what FTS5 cannot read was read, one sentence each. */ notes: string[]
    }
  | { ok: false; message: string | null }

type Tok = { op: 'OR' | 'AND' | 'NOT' | '(' | ')' | '+' } | Term

const LEADING_PLUS = /^\+(?=[\p{L}\p{N}])/u

function tokenize(input: string, notes: string[]): Tok[] {
  let text = input.slice(0, MAX_FTS5_QUERY_CHARS).replace(/\u0000/g, ' ')
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1) {
    // an unbalanced quote is dropped, the words kept
    const last = text.lastIndexOf('"')
    text = text.slice(0, last) + ' ' + text.slice(last + 1)
  }
  const out: Tok[] = []
  let terms = 0
  const plus: string[] = []
  const re = /([+^]?)"([^"]*)"(\*?)|([()])|([^\s()"]+)/g
  for (let m = re.exec(text); m && terms < MAX_TERMS; m = re.exec(text)) {
    if (m[4]) {
      out.push({ op: m[4] as '(' | ')' })
      continue
    }
    if (m[5] === 'OR' || m[5] === 'AND' || m[5] === 'NOT' || m[5] === '+') {
      out.push({ op: m[5] })
      continue
    }
    let mark = m[1] ?? ''
    let word = m[5]
    if (word !== undefined) {
      if (word.startsWith('^') && WORDISH.test([...word][1] ?? '')) mark = '^'
      else if (LEADING_PLUS.test(word)) mark = '+'
      if (mark) word = word.slice(1)
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
    terms++
  }
  if (plus.length)
    notes.push(`A leading + adds nothing (every word must match already): read ${plus.join(', ')} without it.`)
  if (terms >= MAX_TERMS) while (out.length && !('kind' in out[out.length - 1]!)) out.pop() // cut after the 32nd term
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
    if (prev && 'kind' in prev && next && 'kind' in next && !next.initial) {
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

export function parseQuery(input: unknown): Parsed {
  if (typeof input !== 'string') return { ok: false, message: null }
  const notes: string[] = []
  const toks = balance(joinPhrases(tokenize(input, notes), notes), notes)
  let count = 0
  for (const t of toks) if ('kind' in t) count++
  if (count === 0)
    return { ok: false, message: toks.length ? 'Search needs at least one word besides OR / AND / NOT.' : null }
  let i = 0
  const fail = (msg: string): never => {
    throw new SyntaxError(msg)
  }
  const isOp = (t: Tok | undefined, op: string) => t !== undefined && !('kind' in t) && t.op === op
  const term = (): Node => {
    const t = toks[i]
    if (!t) return fail('The query ends with an operator; put a word after it.')
    if (isOp(t, '(')) {
      i++
      const inner = or()
      if (!isOp(toks[i], ')')) return fail('A "(" is not closed; add the ")".')
      i++
      return inner
    }
    if (!('kind' in t)) {
      const before = toks[i - 1]
      if (t.op !== ')') return fail(`"${t.op}" needs a word before and after it.`)
      return fail(
        before && !('kind' in before) && before.op !== '('
          ? `"${before.op}" needs a word before and after it.`
          : 'A "()" has no word inside.'
      )
    }
    i++
    return t
  }
  const not = (): Node => {
    let left = term()
    while (toks[i] && !('kind' in toks[i]!) && (toks[i] as { op: string }).op === 'NOT') {
      i++
      left = { kind: 'not', left, right: term() }
    }
    return left
  }
  const and = (): Node => {
    const items = [not()]
    for (;;) {
      const t = toks[i]
      if (!t) break
      if ('kind' in t || t.op === '(') {
        items.push(not())
        continue
      }
      if (t.op === 'AND') {
        i++
        items.push(not())
        continue
      }
      break
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items }
  }
  const or = (): Node => {
    const items = [and()]
    while (toks[i] && !('kind' in toks[i]!) && (toks[i] as { op: string }).op === 'OR') {
      i++
      items.push(and())
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items }
  }
  try {
    const tree = or()
    if (i < toks.length)
      fail(
        isOp(toks[i], ')')
          ? 'A ")" has no "(" before it.'
          : `"${(toks[i] as { op: string }).op}" needs a word before and after it.`
      )
    const terms: Term[] = []
    const walk = (n: Node): void => {
      if (n.kind === 'term') terms.push(n)
      else if (n.kind === 'not') {
        walk(n.left)
        walk(n.right)
      } else n.items.forEach(walk)
    }
    walk(tree)
    if (terms.length > MAX_TERMS) return { ok: false, message: `Search takes at most ${MAX_TERMS} terms.` }
    return { ok: true, tree, terms, notes }
  } catch (err) {
    return { ok: false, message: `Search query is malformed: ${(err as Error).message}` }
  }
}

/** Terms that must be present (not under a NOT's right side): the ones snippets highlight. */
export function positiveTerms(n: Node): Term[] {
  if (n.kind === 'term') return [n]
  if (n.kind === 'not') return positiveTerms(n.left)
  return n.items.flatMap(positiveTerms)
}

/** One term as FTS5 MATCH text: `^` for an initial term, `*` for a word prefix (not in the trigram index). */
export const matchTerm = (t: Term, word: boolean) =>
  `${t.initial ? '^' : ''}"${t.text.replace(/"/g, '""')}"${t.prefix && word ? '*' : ''}`

/** FTS5 MATCH text. `substring`: the trigram index, where a term matches anywhere and `*` adds nothing. */
export function toMatch(n: Node, substring = false): string {
  if (n.kind === 'term') return matchTerm(n, !substring)
  if (n.kind === 'not') return `(${toMatch(n.left, substring)} NOT ${toMatch(n.right, substring)})`
  return `(${n.items.map((x) => toMatch(x, substring)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}

/**
 * A SQL boolean over `expr` with case-insensitive substring tests; params appended to `params`. Text is folded as
 * `foldCase` folds the term (fold.ts): by the registered Unicode fold for a term with non-ASCII letters; for an
 * ASCII term by SQLite's native `lower()` (only ASCII letters fold into it — and İ, into an i, which `replace`
 * folds first when the term has one; the Kelvin sign is the one other such character and is left out).
 */
export function toInstr(n: Node, expr: string, params: string[]): string {
  if (n.kind === 'term') {
    const folded = foldCase(n.text)
    params.push(folded)
    // `^`: at the start, past leading white space (as FTS5's first token is)
    const text = n.initial ? `ltrim(COALESCE(${expr}, ''), ' ' || char(9, 10, 13))` : `COALESCE(${expr}, '')`
    const at = n.initial ? '= 1' : '> 0'
    // Caseless text (CJK): no fold over every scanned row.
    if (folded === n.text.toUpperCase()) return `instr(${text}, ?) ${at}`
    if (!/^[\x00-\x7f]*$/.test(folded)) return `instr(${FOLD_SQL}(${text}), ?) ${at}`
    return `instr(lower(${folded.includes('i') ? `replace(${text}, '\u0130', 'i')` : text}), ?) ${at}`
  }
  if (n.kind === 'not') return `(${toInstr(n.left, expr, params)} AND NOT ${toInstr(n.right, expr, params)})`
  return `(${n.items.map((x) => toInstr(x, expr, params)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}
