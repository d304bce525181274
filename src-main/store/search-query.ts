/**
 * Search input → a small boolean tree with FTS5's query language: `OR`, `AND`, `NOT` (upper case, binary;
 * precedence NOT > AND > OR, implicit AND between terms), parentheses, `"phrase"`, `pre*` (a word prefix),
 * `^word` / `^"phrase"` (FTS5's initial token: at the very start of the message) and `a + b` (FTS5's phrase
 * join: the phrase "a b"), `NEAR(a b, N)` (the phrases within N words of each other, 10 when N is left out)
 * and column filters `col:` / `{a b}:` / `-col:` over the columns the home's word index has (`content`, and in a
 * v30 home `tool_name`, `tool_calls`); everything else is a literal term (FTS5 syntax never leaks through). Emoji
 * and symbol terms are kept (they are matched as substrings); pure punctuation matches nothing. Input is capped at
 * 2,048 characters; the lexer is search-tokens.ts.
 * Where FTS5 has no meaning for what was typed, the likeliest one is read and said (`notes`): a leading `+` on a
 * word (Google's "must contain", which every word already is) is dropped, so is a leading `-` (FTS5 reads it as a
 * column filter, other engines as "leave out"; NOT says that here), `name:` naming no column is read as text, and
 * unbalanced parentheses are balanced — a `(` added at the start for a stray `)`, a `)` at the end for an unclosed
 * `(`. Any other malformed query, or one with no word at all, is reported as a one-line message, never thrown.
 */
import { FOLD_SQL, foldCase } from './fold'
import { MAX_TERMS, isLeaf, lex, noWord, type Tok } from './search-tokens'
import { errorMessage } from '@shared/contract/errors'

export const MAX_FTS5_QUERY_CHARS = 2048

export interface Term {
  kind: 'term'
  text: string
  prefix: boolean
  /** `^`: FTS5's initial token, the term must start the message (or title). */
  initial?: boolean
  /** A column filter: the word-index columns the term may match in (`all`: every column the index has). */
  columns?: Columns
}
export interface Columns {
  only: string[]
  all: string[]
}
/** FTS5's `NEAR(a b, N)`: every phrase within `distance` words (FTS5's default 10 when null) of the others. */
export interface Near {
  kind: 'near'
  items: Term[]
  distance: number | null
  columns?: Columns
}
export type Node = Term | Near | { kind: 'and' | 'or'; items: Node[] } | { kind: 'not'; left: Node; right: Node }
export type Parsed =
  | {
      ok: true
      tree: Node
      terms: Term[]
      /** How what FTS5 cannot read was read, one sentence each. */ notes: string[]
    }
  | { ok: false; message: string | null }

/** `columns`: the home's word-index columns, which FTS5's column filters (`content:word`) name. */
export function parseQuery(input: unknown, columns: string[] = []): Parsed {
  if (typeof input !== 'string') return { ok: false, message: null }
  let text = input.slice(0, MAX_FTS5_QUERY_CHARS).replace(/\u0000/g, ' ')
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1) {
    // an unbalanced quote is dropped, the words kept
    const last = text.lastIndexOf('"')
    text = text.slice(0, last) + ' ' + text.slice(last + 1)
  }
  let toks: Tok[]
  let notes: string[]
  try {
    ;({ toks, notes } = lex(text, columns))
  } catch (err) {
    return { ok: false, message: `Search query is malformed: ${errorMessage(err)}` }
  }
  let count = 0
  for (const t of toks) if (isLeaf(t)) count++
  if (count === 0) return { ok: false, message: noWord(text, toks) }
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
    if (!('kind' in t) && t.op === 'col') {
      i++
      return restrict(term(), t.columns)
    }
    if (!('kind' in t)) {
      const before = toks[i - 1]
      if (t.op !== ')') return fail(`"${t.op}" needs a word before and after it.`)
      if (before && !('kind' in before) && before.op === 'col')
        return fail('A column filter (content:) needs a word after it, as in content:heater.')
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
      if ('kind' in t || t.op === '(' || t.op === 'col') {
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
      else if (n.kind === 'near') terms.push(...n.items)
      else if (n.kind === 'not') {
        walk(n.left)
        walk(n.right)
      } else n.items.forEach(walk)
    }
    walk(tree)
    if (terms.length > MAX_TERMS) return { ok: false, message: `Search takes at most ${MAX_TERMS} terms.` }
    return { ok: true, tree, terms, notes }
  } catch (err) {
    return { ok: false, message: `Search query is malformed: ${errorMessage(err)}` }
  }
}

/**
 * A column filter over a subtree: every phrase in it may match only in those columns (FTS5 applies a filter to
 * each phrase under it, and nested filters narrow each other). A filter leaving every column is dropped.
 */
function restrict(n: Node, c: Columns): Node {
  const narrow = (own: Columns | undefined): Columns | undefined => {
    const only = own ? own.only.filter((x) => c.only.includes(x)) : c.only
    return only.length === c.all.length ? undefined : { only, all: c.all }
  }
  const put = <T extends Term | Near>(x: T): T => {
    const { columns: _, ...rest } = x
    const columns = narrow(x.columns)
    return (columns ? { ...rest, columns } : rest) as T
  }
  if (n.kind === 'term' || n.kind === 'near') return put(n)
  if (n.kind === 'not') return { kind: 'not', left: restrict(n.left, c), right: restrict(n.right, c) }
  return { kind: n.kind, items: n.items.map((x) => restrict(x, c)) }
}

/** A NEAR group's phrases as plain terms, each keeping the group's column filter. */
export const nearItems = (n: Near): Term[] => (n.columns ? n.items.map((t) => ({ ...t, columns: n.columns })) : n.items)

/** Terms that must be present (not under a NOT's right side): the ones snippets highlight. */
export function positiveTerms(n: Node): Term[] {
  if (n.kind === 'term') return [n]
  if (n.kind === 'near') return n.items
  if (n.kind === 'not') return positiveTerms(n.left)
  return n.items.flatMap(positiveTerms)
}

/** FTS5's column filter in front of a phrase or NEAR group; an empty set is written as "no column". */
const columnPrefix = (c: Columns | undefined) =>
  !c ? '' : c.only.length ? `{${c.only.join(' ')}} : ` : `- {${c.all.join(' ')}} : `

/** One term as FTS5 MATCH text: `^` for an initial term, `*` for a word prefix (not in the trigram index). */
export const matchTerm = (t: Term, word: boolean) =>
  `${columnPrefix(t.columns)}${t.initial ? '^' : ''}"${t.text.replace(/"/g, '""')}"${t.prefix && word ? '*' : ''}`

/** FTS5 MATCH text. `substring`: the trigram index, where a term matches anywhere and `*` adds nothing. */
export function toMatch(n: Node, substring = false): string {
  if (n.kind === 'term') return matchTerm(n, !substring)
  if (n.kind === 'near')
    return `${columnPrefix(n.columns)}NEAR(${n.items.map((t) => matchTerm(t, !substring)).join(' ')}${n.distance === null ? '' : `, ${n.distance}`})`
  if (n.kind === 'not') return `(${toMatch(n.left, substring)} NOT ${toMatch(n.right, substring)})`
  return `(${n.items.map((x) => toMatch(x, substring)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}

/**
 * A SQL boolean over `expr` with case-insensitive substring tests; params appended to `params`. Text is folded as
 * `foldCase` folds the term (fold.ts): by the registered Unicode fold for a term with non-ASCII letters; for an
 * ASCII term by SQLite's native `lower()` (only ASCII letters fold into it — and İ, into an i, which `replace`
 * folds first when the term has one; the Kelvin sign is the one other such character and is left out).
 * `expr` given as parts is their text joined with ' ' (as upstream's inline indexes join content, tool name and tool
 * calls): a term with no space in it is tested on each part apart, which is the same answer without building the
 * joined copy of every scanned row.
 * A term with a column filter is tested on `columnExpr(columns)` — with none given (a title), it never matches.
 * A NEAR group is read as its phrases ANDed (no word positions here).
 */
export function toInstr(
  n: Node,
  expr: string | readonly string[],
  params: string[],
  columnExpr?: (columns: string[]) => string
): string {
  if (n.kind === 'term') {
    if (n.columns && (!columnExpr || !n.columns.only.length)) return '0'
    const folded = foldCase(n.text)
    const test = (over: string) => {
      params.push(folded)
      // `^`: at the start, past leading white space (as FTS5's first token is)
      const text = n.initial ? `ltrim(COALESCE(${over}, ''), ' ' || char(9, 10, 13))` : `COALESCE(${over}, '')`
      const at = n.initial ? '= 1' : '> 0'
      // Caseless text (CJK): no fold over every scanned row.
      if (folded === n.text.toUpperCase()) return `instr(${text}, ?) ${at}`
      if (!/^[\x00-\x7f]*$/.test(folded)) return `instr(${FOLD_SQL}(${text}), ?) ${at}`
      return `instr(lower(${folded.includes('i') ? `replace(${text}, '\u0130', 'i')` : text}), ?) ${at}`
    }
    if (n.columns) return test(columnExpr!(n.columns.only))
    if (typeof expr === 'string') return test(expr)
    if (!n.initial && !folded.includes(' ')) return `(${expr.map(test).join(' OR ')})`
    return test(expr.map((e) => `COALESCE(${e}, '')`).join(" || ' ' || "))
  }
  if (n.kind === 'near')
    return `(${nearItems(n)
      .map((t) => toInstr(t, expr, params, columnExpr))
      .join(' AND ')})`
  if (n.kind === 'not')
    return `(${toInstr(n.left, expr, params, columnExpr)} AND NOT ${toInstr(n.right, expr, params, columnExpr)})`
  return `(${n.items.map((x) => toInstr(x, expr, params, columnExpr)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}
