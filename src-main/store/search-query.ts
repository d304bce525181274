/**
 * Search input → a small boolean tree with FTS5's query language: `OR`, `AND`, `NOT` (upper case, binary;
 * precedence NOT > AND > OR, implicit AND between terms), parentheses, `"phrase"` and `pre*` (a word prefix);
 * everything else is a literal term (FTS5 syntax never leaks through). Emoji and symbol terms are kept (they are
 * matched as substrings); pure punctuation matches nothing. Input is capped at 2,048 characters. A malformed
 * query is reported as a one-line message, never thrown.
 */
import { FOLD_SQL, foldCase } from './fold'

export const MAX_FTS5_QUERY_CHARS = 2048
const MAX_TERMS = 32
const WORDISH = /[\p{L}\p{N}\p{S}\p{Extended_Pictographic}]/u

export interface Term {
  kind: 'term'
  text: string
  prefix: boolean
}
export type Node = Term | { kind: 'and' | 'or'; items: Node[] } | { kind: 'not'; left: Node; right: Node }
export type Parsed = { ok: true; tree: Node; terms: Term[] } | { ok: false; message: string | null }

type Tok = { op: 'OR' | 'AND' | 'NOT' | '(' | ')' } | Term

function tokenize(input: string): Tok[] {
  let text = input.slice(0, MAX_FTS5_QUERY_CHARS).replace(/\u0000/g, ' ')
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1) {
    // an unbalanced quote is dropped, the words kept
    const last = text.lastIndexOf('"')
    text = text.slice(0, last) + ' ' + text.slice(last + 1)
  }
  const out: Tok[] = []
  let terms = 0
  const re = /"([^"]*)"(\*?)|([()])|([^\s()"]+)/g
  for (let m = re.exec(text); m && terms < MAX_TERMS; m = re.exec(text)) {
    if (m[3]) {
      out.push({ op: m[3] as '(' | ')' })
      continue
    }
    if (m[4] === 'OR' || m[4] === 'AND' || m[4] === 'NOT') {
      out.push({ op: m[4] })
      continue
    }
    let body = (m[1] ?? m[4]!).replace(/"/g, '').trim().replace(/\s+/g, ' ')
    let prefix = m[2] === '*'
    if (m[4] !== undefined && body.endsWith('*')) {
      body = body.replace(/\*+$/, '')
      prefix = true
    }
    if (!WORDISH.test(body)) continue // pure punctuation matches nothing in any index
    out.push({ kind: 'term', text: body, prefix })
    terms++
  }
  if (terms >= MAX_TERMS) while (out.length && !('kind' in out[out.length - 1]!)) out.pop() // cut after the 32nd term
  return out
}

export function parseQuery(input: unknown): Parsed {
  if (typeof input !== 'string') return { ok: false, message: null }
  const toks = tokenize(input)
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
    if (!('kind' in t))
      return fail(t.op === ')' ? 'A ")" has no "(" before it.' : `"${t.op}" needs a word before and after it.`)
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
    return { ok: true, tree, terms }
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

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`

/** FTS5 MATCH text. `substring`: the trigram index, where a term matches anywhere and `*` adds nothing. */
export function toMatch(n: Node, substring = false): string {
  if (n.kind === 'term') return quote(n.text) + (n.prefix && !substring ? '*' : '')
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
    const text = `COALESCE(${expr}, '')`
    // Caseless text (CJK): no fold over every scanned row.
    if (folded === n.text.toUpperCase()) return `instr(${text}, ?) > 0`
    if (!/^[\x00-\x7f]*$/.test(folded)) return `instr(${FOLD_SQL}(${text}), ?) > 0`
    return `instr(lower(${folded.includes('i') ? `replace(${text}, '\u0130', 'i')` : text}), ?) > 0`
  }
  if (n.kind === 'not') return `(${toInstr(n.left, expr, params)} AND NOT ${toInstr(n.right, expr, params)})`
  return `(${n.items.map((x) => toInstr(x, expr, params)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}
